import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setServiceConfig } from '../../src/application/operator.js';
import { MAX_ROOT_FIELDS } from '../../src/http/routes/graphql.js';
import { createTestApi, obtainToken, operator, type TestApi } from '../support/ledger.js';
import { serveApp, type ServedApp } from '../support/sse.js';

/**
 * One GraphQL request cannot try many API keys: an operation selects at most MAX_ROOT_FIELDS root
 * fields, a body is one request (no batches), and obtainToken is rate limited per client address
 * and per API key (`token-requests-per-minute`), answered 429 with Retry-After.
 */

interface GraphqlBody {
  data?: Record<string, { token: string; refreshToken: string } | null> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: GraphqlBody;
}

let api: TestApi;
let served: ServedApp;

beforeEach(async () => {
  api = await createTestApi();
  served = await serveApp(api.app);
});
afterEach(async () => {
  await served.close();
  await api.close();
});

const MUTATION = 'mutation($input: ObtainTokenInput!) { obtainToken(input: $input) { token refreshToken } }';

/** POSTs a body to /v1/graphql/ over TCP from `from` (a loopback address of its own: a client address of its own). */
function postFrom(from: string, body: unknown): Promise<Answer> {
  const url = new URL(served.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: '/v1/graphql/', method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, body: JSON.parse(text) as GraphqlBody });
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const obtainFrom = (from: string, input: { APIKey?: string; refreshToken?: string }) => postFrom(from, { query: MUTATION, variables: { input } });

function expectIssued(answer: Answer): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.data?.['obtainToken']?.token).toEqual(expect.any(String));
}

function expectRefused(answer: Answer, code: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.data?.['obtainToken']).toBeNull();
  expect(answer.body.errors?.map((e) => e.extensions?.code)).toEqual([code]);
}

function expectThrottled(answer: Answer, whose: RegExp): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(429);
  expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
  expect(answer.body.data?.['obtainToken']).toBeNull();
  expect(answer.body.errors?.map((e) => e.extensions?.code)).toEqual(['throttled']);
  expect(answer.body.errors?.[0]?.message).toMatch(whose);
}

describe('root fields per GraphQL operation', () => {
  const aliases = (n: number) =>
    `mutation($input: ObtainTokenInput!) { ${Array.from({ length: n }, (_, i) => `t${i}: obtainToken(input: $input) { token }`).join(' ')} }`;

  it(`${MAX_ROOT_FIELDS} aliased obtainToken run; one more refuses the whole request with 400 validation_error before any runs`, async () => {
    const ok = await postFrom('127.0.0.2', { query: aliases(MAX_ROOT_FIELDS), variables: { input: { APIKey: api.key } } });
    expect(ok.status).toBe(200);
    expect(Object.values(ok.body.data ?? {}).every((t) => typeof t?.token === 'string')).toBe(true);

    const refused = await postFrom('127.0.0.2', { query: aliases(MAX_ROOT_FIELDS + 1), variables: { input: { APIKey: api.key } } });
    expect(refused.status).toBe(400);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors?.map((e) => e.extensions?.code)).toEqual(['validation_error']);
    expect(refused.body.errors?.[0]?.message).toMatch(/at most 3 root fields/);
  });

  it('fragments count: a spread twice, an inline fragment, and a deep nest of spreads are all refused (at once, whatever the nesting)', async () => {
    const field = (name: string) => `${name}: obtainToken(input: $input) { token }`;
    const twice = `mutation($input: ObtainTokenInput!) { ...F ...F } fragment F on Mutation { ${field('a')} ${field('b')} }`;
    const inline = `mutation($input: ObtainTokenInput!) { ... on Mutation { ${['a', 'b', 'c', 'd'].map(field).join(' ')} } }`;
    // F30 expands to 2^30 fields: counted once per fragment, so it is refused at once.
    const fragments = Array.from({ length: 30 }, (_, i) => `fragment F${i + 1} on Query { ...F${i} ...F${i} }`).join(' ');
    const nested = `query { ...F30 } fragment F0 on Query { ok } ${fragments}`;
    for (const [query, variables] of [[twice, { input: { APIKey: api.key } }], [inline, { input: { APIKey: api.key } }], [nested, {}]] as const) {
      const answer = await postFrom('127.0.0.2', { query, variables });
      expect(answer.status, query).toBe(400);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors?.map((e) => e.extensions?.code)).toContain('validation_error');
    }
  });

  it('a batch (a JSON array of requests) is refused with 400: one body is one request', async () => {
    const one = { query: MUTATION, variables: { input: { APIKey: api.key } } };
    const answer = await postFrom('127.0.0.2', [one, one]);
    expect(answer.status).toBe(400);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors?.length).toBeGreaterThan(0);
  });
});

describe('obtainToken rate limit', () => {
  it('by default 30 calls a minute from one address, aliases counted one by one: the 31st is 429 throttled with Retry-After; another address is not held back; a minute later it goes through again', async () => {
    for (let i = 0; i < 10; i++) {
      const answer = await postFrom('127.0.0.2', {
        query: 'mutation($input: ObtainTokenInput!) { a: obtainToken(input: $input) { token } b: obtainToken(input: $input) { token } c: obtainToken(input: $input) { token } }',
        variables: { input: { APIKey: `ilk_wrong${i}` } },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.errors?.map((e) => e.extensions?.code)).toEqual(['authentication_failed', 'authentication_failed', 'authentication_failed']);
    }
    // Refused before the key is looked at: a valid key from that address is held back too.
    expectThrottled(await obtainFrom('127.0.0.2', { APIKey: api.key }), /from this address/);
    expectIssued(await obtainFrom('127.0.0.3', { APIKey: api.key }));
    api.clock.advanceSeconds(60);
    expectIssued(await obtainFrom('127.0.0.2', { APIKey: api.key }));
  });

  it('per API key: past the limit the key gets 429 from any address (its refresh tokens too), while another key from there does not', async () => {
    await setServiceConfig(api.ledger, 'token-requests-per-minute', 3, operator);
    const first = await obtainFrom('127.0.0.2', { APIKey: api.key });
    expectIssued(first);
    expectIssued(await obtainFrom('127.0.0.3', { APIKey: api.key }));
    expectIssued(await obtainFrom('127.0.0.4', { APIKey: api.key }));
    expectThrottled(await obtainFrom('127.0.0.5', { APIKey: api.key }), /for this API key/);
    expectThrottled(await obtainFrom('127.0.0.6', { refreshToken: first.body.data!['obtainToken']!.refreshToken }), /for this API key/);
    expectIssued(await obtainFrom('127.0.0.5', { APIKey: api.otherKey }));
    // A wrong key names no key: only its address counts it.
    expectRefused(await obtainFrom('127.0.0.5', { APIKey: 'ilk_wrong' }), 'authentication_failed');
    api.clock.advanceSeconds(60);
    expectIssued(await obtainFrom('127.0.0.5', { APIKey: api.key }));
  });

  it('the 429 of an in-process request matches the OpenAPI document (the app checks every answer against it)', async () => {
    await setServiceConfig(api.ledger, 'token-requests-per-minute', 1, operator);
    expect((await obtainToken(api.app, { APIKey: api.key })).status).toBe(200);
    const res = await obtainToken(api.app, { APIKey: 'ilk_wrong' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = (await res.json()) as GraphqlBody;
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['throttled']);
  });
});
