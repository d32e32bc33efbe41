#!/usr/bin/env node
// Runs the bundle `npm ci` built (the `prepare` script: scripts/build.mjs) when it is at least as new as
// every source, so a command starts in well under 300 ms (docs/operations.md, "The command line"); after a source was
// edited and not yet rebuilt (`npm run build`), runs the TypeScript sources through tsx instead (slower
// to start, never stale). The check stats the source files only: a few milliseconds.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function builtAt() {
  try {
    return statSync(join(root, 'dist', 'build-stamp.json')).mtimeMs;
  } catch {
    return null;
  }
}

function newestSource() {
  let newest = 0;
  for (const dir of ['src', 'events', 'projections']) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const mtime = statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs;
      if (mtime > newest) newest = mtime;
    }
  }
  return newest;
}

const stamp = builtAt();
if (stamp !== null && stamp >= newestSource()) {
  await import('../dist/import-ledger.mjs');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/run.ts');
}
