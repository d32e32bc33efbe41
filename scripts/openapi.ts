// npm run openapi: writes the service's OpenAPI document (openapi/openapi.json, as GET /openapi.json serves
// it) and the typed client's types generated from it (src/client/api-types.ts, openapi-typescript).
// test/http/openapi-files.test.ts fails when the committed files differ from what this writes.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { openApiFiles } from './openapi-files.js';

const files = await openApiFiles();
for (const [path, text] of Object.entries(files)) {
  await writeFile(join(packageRoot(), path), text);
  process.stdout.write(`wrote ${path}\n`);
}
