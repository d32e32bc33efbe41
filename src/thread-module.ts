import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { packageRoot } from './package-root.js';

const bundles = new Map<string, Promise<URL>>();

/**
 * A worker thread's module, runnable: the bundle's own file as it is, or, from the sources (tests, `npm run`
 * scripts), the TypeScript entry bundled once per process with esbuild under node_modules so that Node finds
 * the packages (tsx would compile every module again in each thread).
 */
export function threadModule(entry: URL): Promise<URL> {
  if (!entry.pathname.endsWith('.ts')) return Promise.resolve(entry);
  let found = bundles.get(entry.href);
  if (!found) {
    found = (async () => {
      const { build } = await import('esbuild');
      const name = entry.pathname.split('/').pop()!.replace(/\.ts$/, '');
      const outfile = join(packageRoot(), 'node_modules/.cache/import-ledger', `${name}-${process.pid}-${randomUUID()}.mjs`);
      await build({ entryPoints: [fileURLToPath(entry)], outfile, bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
      process.once('exit', () => rmSync(outfile, { force: true }));
      return pathToFileURL(outfile);
    })();
    bundles.set(entry.href, found);
  }
  return found;
}

/** A thread entry of the project: the bundle's (dist/<name>.mjs) when this runs from it, else the sources' (src/<name>.ts). */
export const threadEntry = (name: string, fromHere: string): URL =>
  fromHere.endsWith('.ts') ? new URL(`./${name}.ts`, fromHere) : pathToFileURL(join(packageRoot(), `dist/${name}.mjs`));
