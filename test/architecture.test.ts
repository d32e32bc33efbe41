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

/**
 * The import circles of `graph` (each module to the modules it imports): one
 * entry per strongly connected component of more than one module, or of one
 * that imports itself, its modules sorted (Tarjan's algorithm, recursive: the
 * import chains of this project are short).
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (module: string) => {
    index.set(module, index.size);
    low.set(module, index.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const imported of graph.get(module) ?? []) {
      if (!index.has(imported)) {
        visit(imported);
        low.set(module, Math.min(low.get(module)!, low.get(imported)!));
      } else if (onStack.has(imported)) {
        low.set(module, Math.min(low.get(module)!, index.get(imported)!));
      }
    }
    if (low.get(module) !== index.get(module)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1 || (graph.get(module) ?? []).includes(module)) cycles.push(component.sort());
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return cycles;
}

const all = [...sources('src'), ...sources('events'), ...sources('projections')];
const offenders = (files: readonly string[], forbidden: (imported: string) => boolean) =>
  files.flatMap((file) => importsOf(file).filter(forbidden).map((imported) => `${file} imports ${imported}`));
const under = (dir: string) => (file: string) => file.startsWith(`${dir}/`);
const underAny = (...dirs: string[]) => (file: string) => dirs.some((dir) => under(dir)(file));

/** The project's modules and the project modules each imports (a `.js` specifier names its `.ts` source). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const source = (imported: string) => (known.has(imported.replace(/\.js$/, '.ts')) ? imported.replace(/\.js$/, '.ts') : imported);
  return new Map(files.map((file) => [file, importsOf(file).map(source).filter((imported) => known.has(imported))]));
}

describe('architecture: the store is a port, SQLite one adapter behind it', () => {
  it('the import scanner sees imports (a guard for the checks below)', () => {
    expect(importsOf('src/ledger.ts')).toContain('src/store/sqlite/open-sqlite-ledger.js');
    expect(importsOf('src/store/sqlite/database.ts')).toContain('better-sqlite3');
  });

  it('src/domain and events/ import nothing from src/store, src/application or src/http', () => {
    expect(offenders(all.filter(underAny('src/domain', 'events')), underAny('src/store', 'src/application', 'src/http'))).toEqual([]);
  });

  it('the store imports no layer above it: the composition root (src/ledger.ts) builds on its ports', () => {
    const above = underAny('src/application', 'src/answers', 'src/queries', 'src/feed', 'src/http', 'src/cli', 'src/migrate');
    expect(offenders(all.filter(under('src/store')), above)).toEqual([]);
  });

  it('the answers (presenters, and the Idempotency-Key recovery run inside the store transaction) import only events/ and src/domain: no HTTP code', () => {
    const answers = all.filter(under('src/answers'));
    expect(answers.length).toBeGreaterThan(3);
    expect(offenders(answers, underAny('src/http', 'src/cli', 'src/application', 'src/queries', 'src/store'))).toEqual([]);
  });

  it('the queries import nothing from src/http or src/cli', () => {
    expect(offenders(all.filter(under('src/queries')), underAny('src/http', 'src/cli'))).toEqual([]);
  });

  // migrate's and verify's scratch file is the client's own working file (src/migrate/scratch.ts), never the ledger.
  it('better-sqlite3 and drizzle-orm/better-sqlite3 are imported only under src/store/sqlite/ (and by the migrate client\'s scratch file)', () => {
    const sqliteUsers = all.filter((f) => !under('src/store/sqlite')(f) && f !== 'src/migrate/scratch.ts');
    expect(offenders(sqliteUsers, (m) => m === 'better-sqlite3' || m.startsWith('drizzle-orm/better-sqlite3'))).toEqual([]);
  });

  it('pg and pg-cursor are imported only under src/store/postgres/', () => {
    expect(offenders(all.filter((f) => !under('src/store/postgres')(f)), (m) => m === 'pg' || m === 'pg-cursor' || m.startsWith('drizzle-orm/node-postgres'))).toEqual([]);
  });

  for (const adapter of ['src/store/sqlite', 'src/store/postgres']) {
    // src/sqlite-writer.ts is the SQLite writer thread's own composition root (its module).
    it(`only the composition roots (src/ledger.ts, the writer thread's src/sqlite-writer.ts) pick an adapter: nothing else imports ${adapter}/`, () => {
      const roots = ['src/ledger.ts', 'src/sqlite-writer.ts'];
      expect(offenders(all.filter((f) => !under(adapter)(f) && !roots.includes(f)), under(adapter))).toEqual([]);
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

describe('architecture: imports run one way', () => {
  it('the cycle finder finds every circle of a made-up graph, and nothing in a graph without one', () => {
    const graph = new Map<string, string[]>([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', ['e']],
      ['e', []],
      ['f', ['f']],
      ['g', ['h', 'e']],
      ['h', ['g']],
    ]);
    expect(importCycles(graph).sort()).toEqual([['a', 'b', 'c'], ['f'], ['g', 'h']]);
    expect(importCycles(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toEqual([]);
  });

  it('the import graph resolves a .js specifier to its .ts source (a guard for the check below)', () => {
    expect(importGraph(all).get('src/ledger.ts')).toContain('src/store/sqlite/open-sqlite-ledger.ts');
  });

  it('no import circle anywhere in src/, events/ or projections/ (type-only imports count)', () => {
    expect(importCycles(importGraph(all))).toEqual([]);
  });
});
