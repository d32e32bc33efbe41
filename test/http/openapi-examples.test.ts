import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/package-root.js';

interface Media {
  schema?: object;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  operationId?: string;
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
}

const document = JSON.parse(readFileSync(join(packageRoot(), 'openapi/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components?: object;
};
const operations = Object.values(document.paths).flatMap((item) => Object.values(item));

/** Every example of the committed document (the one a test keeps equal to what the service serves), with where it is. */
function examples(): { where: string; schema: object; value: unknown }[] {
  const found: { where: string; schema: object; value: unknown }[] = [];
  for (const operation of operations) {
    const media = (where: string, m: Media | undefined) => {
      for (const [name, example] of Object.entries(m?.examples ?? {})) found.push({ where: `${operation.operationId} ${where} ${name}`, schema: m!.schema ?? {}, value: example.value });
    };
    media('request', operation.requestBody?.content?.['application/json']);
    for (const [status, response] of Object.entries(operation.responses ?? {})) media(status, response.content?.['application/json']);
  }
  return found;
}

describe('the OpenAPI document examples', () => {
  it('every request and response example validates against its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const all = examples();
    expect(all.length).toBeGreaterThan(30);
    const problems = all.flatMap(({ where, schema, value }) => {
      const validate = ajv.compile({ ...schema, components: document.components ?? {} });
      return validate(value) ? [] : [`${where}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(problems).toEqual([]);
  });

  it('an operation with a request example shows what the service answers it (a response example)', () => {
    const withRequest = operations.filter((o) => Object.keys(o.requestBody?.content?.['application/json']?.examples ?? {}).length > 0);
    const missing = withRequest.filter((o) => !Object.values(o.responses ?? {}).some((r) => Object.keys(r.content?.['application/json']?.examples ?? {}).length > 0));
    expect(missing.map((o) => o.operationId)).toEqual([]);
  });

  it('a broken example is caught (the check is not vacuous)', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const process = operations.find((o) => o.operationId === 'processAccount')!;
    const created = process.responses!['201']!.content!['application/json']!;
    const validate = ajv.compile({ ...created.schema, components: document.components ?? {} });
    expect(validate(created.examples!['process']!.value)).toBe(true);
    expect(validate({ external_account_number: 'LEG-0000001' })).toBe(false);
  });
});
