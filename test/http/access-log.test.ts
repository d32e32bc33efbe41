import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import type { AccessLog } from '../../src/http/request-context.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, TOKEN_SECRET, createTestApi, plainAppDeps, type TestApi } from '../support/ledger.js';

/** LEDGER_ACCESS_LOG: a line for every request, or only for the ones answered 4xx or 5xx (or slow). */
describe('the access log', () => {
  let api: TestApi;
  beforeEach(async () => {
    api = await createTestApi();
  });
  afterEach(() => api.close());

  const requestsLogged = async (accessLog: AccessLog) => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const app = createApp({ ...api.ledger, ...plainAppDeps, logger: pino({ level: 'info' }, sink), tokenSecret: TOKEN_SECRET, maxBodyBytes: 1 << 20, databaseReachable: async () => true, accessLog });
    const token = await accessToken(api);
    const auth = { headers: { authorization: `Token ${token}` } };
    expect((await app.request(`/v1/data-import/import-progress/${SUPPLIER}/`, auth)).status).toBe(200);
    expect((await app.request('/v1/data-import/import-progress/NOBODY/', auth)).status).toBe(403);
    expect((await app.request('/v1/data-import/import-progress/LEGACY_ENERGIE/')).status).toBe(401);
    return lines.filter((l) => l['msg'] === 'request completed').map((l) => l['status']);
  };

  it('`failures` logs the requests answered 4xx or 5xx only; `all` every request', async () => {
    expect(await requestsLogged('failures')).toEqual([403, 401]);
    expect(await requestsLogged('all')).toEqual([200, 403, 401]);
  });
});
