import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/package-root.js';

/** Every .ts file under `dir`, with its text. */
function sources(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

/**
 * No exported schema goes unused: an exported
 * zod schema of src/http is used by a route (it validates) or by the OpenAPI descriptions (the document,
 * which every HTTP test's answers are checked against); one nothing uses would drift unseen.
 */
describe('exported schemas of src/http', () => {
  it('each is used somewhere besides its own definition', () => {
    const root = packageRoot();
    const files = sources(join(root, 'src'));
    const exported = files
      .filter((f) => relative(root, f.path).startsWith(join('src', 'http')))
      .flatMap((f) => [...f.text.matchAll(/export const (\w+[Ss]chema)\b/g)].map((m) => ({ name: m[1]!, path: f.path })));
    expect(exported.length).toBeGreaterThan(30);
    const unused = exported.filter(({ name, path }) =>
      files.every((f) => {
        const uses = f.text.match(new RegExp(`\\b${name}\\b`, 'g'))?.length ?? 0;
        return f.path === path ? uses <= 1 : uses === 0;
      }),
    );
    expect(unused.map((u) => `${u.name} (${relative(root, u.path)})`)).toEqual([]);
  });
});
