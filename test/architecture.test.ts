import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './cli/run-cli.js';

/** Every TypeScript and JavaScript source under `dir`, relative to the project root. */
function sources(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(PROJECT_ROOT, dir))) {
    const path = join(dir, entry);
    if (statSync(join(PROJECT_ROOT, path)).isDirectory()) found.push(...sources(path));
    else if (/\.(ts|js)$/.test(entry)) found.push(path);
  }
  return found;
}

/** The modules a source imports (static imports, re-exports and dynamic imports), relative ones resolved to project paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)].map(
    (m) => m[1] ?? m[2] ?? m[3]!,
  );
  return specifiers.map((s) => (s.startsWith('.') ? relative(PROJECT_ROOT, resolve(PROJECT_ROOT, dirname(file), s)) : s));
}

const all = [...sources('src'), ...sources('events'), ...sources('projections')];
const offenders = (files: readonly string[], forbidden: (imported: string) => boolean) =>
  files.flatMap((file) => importsOf(file).filter(forbidden).map((imported) => `${file} imports ${imported}`));
const under = (dir: string) => (file: string) => file.startsWith(`${dir}/`);

describe('architecture: the store is a port, SQLite one adapter behind it', () => {
  it('the import scanner sees imports (a guard for the checks below)', () => {
    expect(importsOf('src/ledger.ts')).toContain('src/store/sqlite/open-sqlite-ledger.js');
    expect(importsOf('src/store/sqlite/database.ts')).toContain('better-sqlite3');
  });

  it('src/domain and events/ import nothing from src/store', () => {
    expect(offenders(all.filter((f) => under('src/domain')(f) || under('events')(f)), under('src/store'))).toEqual([]);
  });

  it('better-sqlite3 and drizzle-orm/better-sqlite3 are imported only under src/store/sqlite/', () => {
    expect(offenders(all.filter((f) => !under('src/store/sqlite')(f)), (m) => m === 'better-sqlite3' || m.startsWith('drizzle-orm/better-sqlite3'))).toEqual([]);
  });

  it('pg and pg-cursor are imported only under src/store/postgres/', () => {
    expect(offenders(all.filter((f) => !under('src/store/postgres')(f)), (m) => m === 'pg' || m === 'pg-cursor' || m.startsWith('drizzle-orm/node-postgres'))).toEqual([]);
  });

  for (const adapter of ['src/store/sqlite', 'src/store/postgres']) {
    it(`only the composition root (src/ledger.ts) picks an adapter: nothing else imports ${adapter}/`, () => {
      expect(offenders(all.filter((f) => !under(adapter)(f) && f !== 'src/ledger.ts'), under(adapter))).toEqual([]);
    });
  }

  it('the adapters do not import each other', () => {
    expect(offenders(all.filter(under('src/store/sqlite')), under('src/store/postgres'))).toEqual([]);
    expect(offenders(all.filter(under('src/store/postgres')), under('src/store/sqlite'))).toEqual([]);
  });

  it('the store ports (src/store/*.ts) import no adapter', () => {
    const ports = all.filter((f) => /^src\/store\/[^/]+\.ts$/.test(f));
    expect(ports.length).toBeGreaterThan(5);
    const driver = (m: string) => ['better-sqlite3', 'pg', 'pg-cursor'].includes(m) || m.startsWith('drizzle-orm/better-sqlite3') || m.startsWith('drizzle-orm/node-postgres');
    expect(offenders(ports, (m) => under('src/store/sqlite')(m) || under('src/store/postgres')(m) || driver(m))).toEqual([]);
  });
});
