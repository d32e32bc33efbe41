import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

/** The project directory (package.json, drizzle/, the worker scripts), found on first use walking up from this module, bundled or not. */
export function packageRoot(): string {
  if (found !== undefined) return found;
  const from = dirname(fileURLToPath(import.meta.url));
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'import-ledger') return (found = dir);
    if (dirname(dir) === dir) throw new Error(`import-ledger's package.json not found above ${from}`);
  }
}
