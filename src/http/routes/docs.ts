import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import type { OpenAPIV3_1 } from 'openapi-types';
import { packageRoot } from '../../package-root.js';
import type { AppEnv } from '../env.js';
import { DOCS_PATH, OPENAPI_PATH } from '../openapi/document.js';
import { FAVICON_PATH } from './favicon.js';

/**
 * Swagger UI's prebuilt browser files, served from node_modules and never from a CDN, so the page works
 * offline and behind firewalls. The package has no runtime dependency and supports every Node version.
 */
const SWAGGER_UI = 'node_modules/swagger-ui-dist';
const ASSETS = `${DOCS_PATH}assets`;
const assets = {
  'swagger-ui.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
} as const;

/**
 * The reference page, reading the document this service serves. `validatorUrl: null` turns off the
 * badge that would send the document to swagger.io's validator; the base layout leaves out the top bar
 * (a field to load any other URL): the page asks nothing of the internet and shows only this API.
 */
const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>import-ledger API reference</title>
    <link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml" />
    <link rel="stylesheet" href="${ASSETS}/swagger-ui.css" />
  </head>
  <body>
    <div id="reference"></div>
    <script src="${ASSETS}/swagger-ui.js"></script>
    <script>
      SwaggerUIBundle({
        url: '${OPENAPI_PATH}',
        dom_id: '#reference',
        presets: [SwaggerUIBundle.presets.apis],
        layout: 'BaseLayout',
        validatorUrl: null,
        deepLinking: true,
        displayRequestDuration: true,
      });
    </script>
  </body>
</html>
`;

/**
 * GET /openapi.json, GET /docs/ and its assets: no token, as a migration team reads them before it has
 * a key. `/docs` redirects to `/docs/`, as `/dashboard` redirects to `/dashboard/`.
 */
export function docsRoutes(document: () => Promise<OpenAPIV3_1.Document>) {
  const files = new Map<string, Promise<string>>();
  return new Hono<AppEnv>()
    .get(OPENAPI_PATH, async (c) => c.json(await document()))
    .get('/docs', (c) => c.redirect(DOCS_PATH, 301))
    .get(DOCS_PATH, (c) => c.html(page))
    .get(`${ASSETS}/:name`, async (c) => {
      const name = c.req.param('name');
      if (!Object.hasOwn(assets, name)) return c.notFound();
      const asset = assets[name as keyof typeof assets];
      let text = files.get(name);
      if (!text) files.set(name, (text = readFile(join(packageRoot(), SWAGGER_UI, asset.file), 'utf8')));
      c.header('Cache-Control', 'public, max-age=86400');
      return c.body(await text, 200, { 'Content-Type': asset.type });
    });
}
