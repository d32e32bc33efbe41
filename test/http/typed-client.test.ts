import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedgerClient } from '../../src/client/index.js';
import { createTestApi, type TestApi } from '../support/ledger.js';

/** The generated client against the real app (its fetch is the app's own request handler). */
describe('the typed client', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await createTestApi();
  });
  afterAll(async () => t.close());

  it('calls an operation of the document with the token and reads the answer', async () => {
    const token = await t.token();
    const client = createLedgerClient('http://ledger.test', token, (input, init) => Promise.resolve(t.app.request(input as Request, init)));
    const { response } = await client.GET('/v1/data-import/all-account-import-processes/{supplier}/', { params: { path: { supplier: 'LEGACY_ENERGIE' } } });
    expect(response.status).toBe(200);
    const anonymous = createLedgerClient('http://ledger.test', undefined, (input, init) => Promise.resolve(t.app.request(input as Request, init)));
    const refused = await anonymous.GET('/v1/data-import/all-account-import-processes/{supplier}/', { params: { path: { supplier: 'LEGACY_ENERGIE' } } });
    expect(refused.response.status).toBe(401);
  });
});
