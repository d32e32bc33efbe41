import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { createTestApi, type TestApi } from '../support/ledger.js';

/**
 * GET service/: the service's identity, drawn once with its ledger. Every instance on one database answers
 * the same; another database is another service (what keeps migrate's journal to the service it was written for).
 */
let api: TestApi;
let other: TestApi | null = null;
beforeEach(async () => {
  api = await createTestApi();
});
afterEach(async () => {
  await other?.close();
  other = null;
  await api.close();
});

const identity = async (testApi: TestApi, token: string): Promise<string> => {
  const res = await testApi.get('/v1/data-import/service/', token);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { service_id: string };
  expect(Object.keys(body)).toEqual(['service_id']);
  return body.service_id;
};

describe('the service identity', () => {
  it('is one UUID for every key and request, and for a second instance on the same database', async () => {
    const id = await identity(api, await accessToken(api));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await identity(api, await accessToken(api, api.otherKey))).toBe(id);
    const second = await openLedger(api.location, { clock: api.clock.read });
    try {
      expect(await second.serviceId()).toBe(id);
    } finally {
      await second.close();
    }
  });

  it('is another one on another database', async () => {
    other = await createTestApi();
    expect(await identity(other, await accessToken(other))).not.toBe(await identity(api, await accessToken(api)));
  });

  it('needs a token', async () => {
    const res = await api.get('/v1/data-import/service/', 'not-a-token');
    await expectErrorBody(res, 401);
  });
});
