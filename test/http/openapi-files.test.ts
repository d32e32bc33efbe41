import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiFiles } from '../../scripts/openapi-files.js';
import { packageRoot } from '../../src/package-root.js';

/** The committed document and client types are what `npm run openapi` makes now: the client cannot drift from the routes. */
describe('the committed OpenAPI document and typed client', () => {
  it('equal what npm run openapi generates (run it after changing a route or a schema)', async () => {
    const files = await openApiFiles();
    for (const [path, text] of Object.entries(files)) {
      expect(readFileSync(join(packageRoot(), path), 'utf8'), `${path} is stale: run npm run openapi`).toBe(text);
    }
  });
});
