import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, TOKEN_SECRET, createTestApi, plainAppDeps, type TestApi } from '../support/ledger.js';

/**
 * No answer shows a write before it is on disk: every request that reads the store waits for the writes
 * committed so far to be synced (the ledger's `durable`). The liveness probe shows nothing of the store,
 * so it answers while a sync is still running.
 */

let api: TestApi;
afterEach(() => api.close());

/** The app over the test ledger, with a sync that ends only when the test says so. */
async function appWithHeldSync() {
  api = await createTestApi();
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const app = createApp({
    ...api.ledger,
    ...plainAppDeps,
    durable: () => held,
    logger: pino({ level: 'silent' }),
    tokenSecret: TOKEN_SECRET,
    maxBodyBytes: 1 << 20,
    databaseReachable: async () => true,
  });
  return { app, release };
}

describe('the wait for durability', () => {
  it('/healthz answers while a sync runs; a read of the store waits for it', async () => {
    const { app, release } = await appWithHeldSync();
    const token = await accessToken(api);
    const health = await app.request('/healthz');
    expect(health.status).toBe(200);
    let answered = false;
    const progress = Promise.resolve(app.request(`/v1/data-import/import-progress/${SUPPLIER}/`, { headers: { authorization: `Token ${token}` } })).then((res) => {
      answered = true;
      return res;
    });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    release();
    expect((await progress).status).toBe(200);
  });
});
