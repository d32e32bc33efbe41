import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import type { OpenAPIV3_1 } from 'openapi-types';
import { packageRoot } from '../../package-root.js';
import type { AppEnv } from '../env.js';
import { DOCS_PATH, OPENAPI_PATH } from '../openapi/document.js';

/** Scalar's self-contained browser build: served from node_modules, never from a CDN (offline, behind firewalls). */
const SCALAR_BUNDLE = 'node_modules/@scalar/api-reference/dist/browser/standalone.js';

/**
 * The reference page: Scalar, configured so that it asks nothing of the
 * internet (no web fonts, no hosted services), reading the document this
 * service serves.
 */
const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>import-ledger API reference</title>
  </head>
  <body>
    <div id="reference"></div>
    <script src="${DOCS_PATH}/assets/scalar.js"></script>
    <script>
      Scalar.createApiReference('#reference', {
        url: '${OPENAPI_PATH}',
        withDefaultFonts: false,
        hideClientButton: true,
        telemetry: false,
      });
    </script>
  </body>
</html>
`;

/** GET /openapi.json, GET /docs and its one asset: no token, as a migration team reads them before it has a key. */
export function docsRoutes(document: () => Promise<OpenAPIV3_1.Document>) {
  let bundle: Promise<string> | null = null;
  return new Hono<AppEnv>()
    .get(OPENAPI_PATH, async (c) => c.json(await document()))
    .get(DOCS_PATH, (c) => c.html(page))
    .get(`${DOCS_PATH}/assets/scalar.js`, async (c) => {
      bundle ??= readFile(join(packageRoot(), SCALAR_BUNDLE), 'utf8');
      c.header('Cache-Control', 'public, max-age=86400');
      return c.body(await bundle, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
    });
}
