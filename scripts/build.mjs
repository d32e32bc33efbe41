// npm run build (and `prepare`, so `npm ci` runs it): bundles the service and its command line
// (src/cli/run.ts) into dist/import-ledger.mjs, split per dynamically imported module (dist/chunks/),
// so `npm start` and bin/import-ledger.js run plain JavaScript (no TypeScript loader at start-up), and a
// CLI command reads from disk only the code it runs (src/cli/main.ts imports each command lazily).
// Packages stay external (better-sqlite3 is native). Writes dist/build-stamp.json last: the bin runs the
// bundle only when that stamp is newer than every source (else it runs the sources through tsx).
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

// Built beside dist/ and swapped in with renames, so a bin or a server started meanwhile (tests run in
// parallel) never reads a half-written bundle: it sees the old one, the new one, or none (and runs tsx).
const staging = `dist.build-${process.pid}`;
rmSync(join(root, staging), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { 'import-ledger': 'src/cli/run.ts', 'sqlite-writer': 'src/sqlite-writer.ts', 'relay-thread': 'src/relay-thread.ts' },
  outdir: staging,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // Pure-JavaScript packages are bundled in (drizzle-orm and zod alone are some 650 files that Node would
  // otherwise resolve and read one by one: most of a command's start-up). Kept external: the native
  // better-sqlite3, pg (its optional native binding), pino (its transports run in worker threads that
  // load files by path) and the build tools.
  external: ['better-sqlite3', 'pg', 'pg-cursor', 'pino', 'pino-pretty', 'tsx', 'esbuild'],
  // Bundled CommonJS packages call require() for Node's built-ins; ESM output has none of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  sourcemap: 'linked',
  logLevel: 'warning',
});
writeFileSync(join(root, staging, 'build-stamp.json'), `${JSON.stringify({ builtAt: new Date().toISOString() })}\n`);
const old = `dist.old-${process.pid}`;
try {
  renameSync(join(root, 'dist'), join(root, old));
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}
try {
  renameSync(join(root, staging), join(root, 'dist'));
} catch (error) {
  // Another build swapped its own (as fresh) bundle in first: keep that one.
  if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
  rmSync(join(root, staging), { recursive: true, force: true });
}
rmSync(join(root, old), { recursive: true, force: true });
