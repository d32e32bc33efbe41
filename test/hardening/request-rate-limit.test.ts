import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setServiceConfig } from '../../src/application/operator.js';
import { RequestRateLimiter } from '../../src/http/request-rate-limiter.js';
import { CLI_TEST_TIMEOUT_MS, runCli } from '../cli/run-cli.js';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { authenticatedEndpoints, type Endpoint } from '../support/endpoints.js';
import { expectErrorBody } from '../support/http.js';
import { createTestDatabaseLocation, operator, OTHER_SUPPLIER, SUPPLIER } from '../support/ledger.js';

/** The per-API-key request-rate limit: `import-ledger config set request-rate-per-second <N|off>`, off by default. */

describe('RequestRateLimiter (token bucket per key)', () => {
  it('for any request times: at most rate x T + rate requests pass in any window of T seconds, and a key alone never waits past its rate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 200 }), (rate, gaps) => {
        let now = 0;
        const limiter = new RequestRateLimiter(() => new Date(now));
        const passed: number[] = [];
        for (const gap of gaps) {
          now += gap;
          const wait = limiter.take('key', rate);
          if (wait === null) passed.push(now);
          else expect(wait).toBeGreaterThanOrEqual(1);
        }
        for (let i = 0; i < passed.length; i++) {
          for (let j = i; j < passed.length; j++) {
            const windowSeconds = (passed[j]! - passed[i]!) / 1000;
            expect(j - i + 1).toBeLessThanOrEqual(Math.floor(rate * windowSeconds + rate + 1e-9));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('Retry-After is the time until one request is allowed again; keys are independent', () => {
    let now = 0;
    const limiter = new RequestRateLimiter(() => new Date(now));
    expect([limiter.take('a', 2), limiter.take('a', 2), limiter.take('a', 2)]).toEqual([null, null, 1]);
    expect(limiter.take('b', 2)).toBeNull();
    now += 500;
    expect(limiter.take('a', 2)).toBeNull();
    expect(limiter.take('a', 2)).toBe(1);
    // A slow rate: one request a second at most, but a bucket of 1 needs the whole second.
    expect(limiter.take('c', 1)).toBeNull();
    now += 100;
    expect(limiter.take('c', 1)).toBe(1);
  });
});

describe('request-rate-per-second on every endpoint', () => {
  let world: EndpointWorld;
  beforeAll(async () => {
    world = await createEndpointWorld();
  });
  afterAll(() => world.close());
  afterEach(async () => {
    await setServiceConfig(world.api.ledger, 'request-rate-per-second', null, operator);
    world.api.clock.advanceSeconds(5);
  });

  it('is off by default: 30 requests at the same instant all go through', async () => {
    const endpoint = authenticatedEndpoints.find((e) => e.method === 'GET')!;
    for (let i = 0; i < 30; i++) expect((await world.request(endpoint)).status).not.toBe(429);
  });

  it.each(authenticatedEndpoints.map((e) => [e.name, e] as [string, Endpoint]))(
    '%s: past the rate, 429 throttled with Retry-After in the error shape, nothing written; other keys unaffected; time refills it',
    async (_name, endpoint) => {
      await setServiceConfig(world.api.ledger, 'request-rate-per-second', 2, operator);
      // Long enough to refill every key's bucket (it holds one second's requests), short enough that the
      // world's tokens (60 minutes) outlive a step per endpoint of the table.
      world.api.clock.advanceSeconds(5);
      const first = await Promise.all([world.request(endpoint), world.request(endpoint)]);
      for (const res of first) expect(res.status).not.toBe(429);
      const before = await world.eventCount();
      const throttled = await world.request(endpoint);
      await expectErrorBody(throttled, 429, 'throttled');
      expect(throttled.headers.get('retry-after')).toBe('1');
      expect(await world.eventCount()).toBe(before);
      // Another key has its own bucket.
      expect((await world.request(endpoint, { as: OTHER_SUPPLIER, params: world.params(endpoint, OTHER_SUPPLIER) })).status).not.toBe(429);
      world.api.clock.advanceSeconds(1);
      expect((await world.request(endpoint, { as: SUPPLIER })).status).not.toBe(429);
    },
  );

  it('turning it off lifts the limit at once', async () => {
    const endpoint = authenticatedEndpoints.find((e) => e.method === 'GET')!;
    await setServiceConfig(world.api.ledger, 'request-rate-per-second', 1, operator);
    world.api.clock.advanceSeconds(5);
    expect((await world.request(endpoint)).status).toBe(200);
    expect((await world.request(endpoint)).status).toBe(429);
    await setServiceConfig(world.api.ledger, 'request-rate-per-second', null, operator);
    expect((await world.request(endpoint)).status).toBe(200);
  });
});

describe('import-ledger config set request-rate-per-second', () => {
  it(
    'is off by default, takes a whole number of at least 1, or off',
    async () => {
      // A database no ledger has written to yet: a SQLite file not created yet, or a fresh PostgreSQL database.
      const db = await createTestDatabaseLocation();
      try {
        expect(await runCli(db.location, ['config', 'get', 'request-rate-per-second'])).toMatchObject({ code: 0, stdout: 'off\n' });
        expect(await runCli(db.location, ['config', 'set', 'request-rate-per-second', '50'])).toMatchObject({ code: 0 });
        expect(await runCli(db.location, ['config', 'get', 'request-rate-per-second'])).toMatchObject({ code: 0, stdout: '50\n' });
        expect((await runCli(db.location, ['config', 'set', 'request-rate-per-second', '0'])).code).toBe(2);
        expect(await runCli(db.location, ['config', 'set', 'request-rate-per-second', 'off'])).toMatchObject({ code: 0 });
      } finally {
        await db.release();
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
