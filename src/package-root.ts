import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

/**
 * The project directory (where package.json, drizzle/ and the worker scripts
 * are), found by walking up from this module on first use (nothing is read
 * at import time): the same answer whether the sources run through tsx
 * (src/package-root.ts) or bundled (dist/import-ledger.mjs).
 */
export function packageRoot(): string {
  if (found !== undefined) return found;
  const from = dirname(fileURLToPath(import.meta.url));
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'import-ledger') return (found = dir);
    if (dirname(dir) === dir) throw new Error(`import-ledger's package.json not found above ${from}`);
  }
}
