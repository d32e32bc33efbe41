import { serve, type ServerType } from '@hono/node-server';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/application/operator.js';
import { obtainToken as issueToken } from '../../src/application/tokens.js';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { authenticatedEndpoints, type Endpoint } from '../support/endpoints.js';
import { expectErrorBody } from '../support/http.js';
import { operator, SUPPLIER, TOKEN_SECRET } from '../support/ledger.js';
import { checkedFetch } from '../support/openapi-check.js';

/**
 * Every endpoint under /v1/data-import/ answers a missing or bad
 * credential with 401 in spec 7's shape (never 500), and writes nothing.
 */

let world: EndpointWorld;
let revokedToken: string;
let refreshToken: string;
let expiredToken: string;
let foreignToken: string;
let unsignedToken: string;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

beforeAll(async () => {
  world = await createEndpointWorld();
  const { ledger, clock } = world.api;
  const revoked = await createApiKey(ledger, { suppliers: [SUPPLIER], label: 'to revoke' }, operator);
  revokedToken = (await issueToken(ledger, TOKEN_SECRET, { apiKey: revoked.key })).token;
  await revokeApiKey(ledger, revoked.keyId, operator);
  refreshToken = (await issueToken(ledger, TOKEN_SECRET, { apiKey: world.api.key })).refreshToken;
  // Issued 61 minutes before the world's clock: expired by one minute.
  const now = clock.now;
  clock.advanceSeconds(-61 * 60);
  expiredToken = (await issueToken(ledger, TOKEN_SECRET, { apiKey: world.api.key })).token;
  clock.now = now;
  const claims = { sub: world.api.keyId, typ: 'access', iat: 0, exp: 4_102_444_800 };
  const signed = (secret: string) => {
    const data = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    return `${data}.${createHmac('sha256', secret).update(data).digest('base64url')}`;
  };
  foreignToken = signed('another-secret-0123456789-0123456789-0123');
  unsignedToken = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
});
afterAll(() => world.close());

/** Each bad Authorization header (null: none at all) and the code it must get. */
const cases = (): { name: string; header: () => string | null; code: string }[] => [
  { name: 'no header', header: () => null, code: 'not_authenticated' },
  { name: 'Bearer x', header: () => 'Bearer x', code: 'not_authenticated' },
  { name: 'Basic credentials', header: () => 'Basic dXNlcjpwYXNz', code: 'not_authenticated' },
  { name: 'empty header', header: () => '', code: 'not_authenticated' },
  { name: 'Token with an empty value', header: () => 'Token ', code: 'authentication_failed' },
  { name: 'Token and blanks only', header: () => 'Token \t  ', code: 'authentication_failed' },
  { name: 'Token with two words', header: () => 'Token abc def', code: 'authentication_failed' },
  { name: 'a garbage token', header: () => 'Token not-a-jwt', code: 'authentication_failed' },
  { name: 'a JWT-shaped garbage token', header: () => 'Token aaa.bbb.ccc', code: 'authentication_failed' },
  { name: 'an expired token', header: () => `Token ${expiredToken}`, code: 'authentication_failed' },
  { name: 'a token of a revoked key', header: () => `Token ${revokedToken}`, code: 'authentication_failed' },
  { name: 'a refresh token', header: () => `Token ${refreshToken}`, code: 'authentication_failed' },
  { name: 'a token signed with another secret', header: () => `Token ${foreignToken}`, code: 'authentication_failed' },
  { name: 'an unsigned (alg none) token', header: () => `Token ${unsignedToken}`, code: 'authentication_failed' },
  { name: 'a 64 KB token', header: () => `Token ${'a'.repeat(64 * 1024)}`, code: 'authentication_failed' },
  { name: 'a 64 KB JWT-shaped token', header: () => `Token ${'a'.repeat(32 * 1024)}.${'b'.repeat(16 * 1024)}.${'c'.repeat(16 * 1024)}`, code: 'authentication_failed' },
  { name: 'a 64 KB header of blanks after Token', header: () => `Token${' '.repeat(64 * 1024)}x`, code: 'authentication_failed' },
  { name: 'a 64 KB header of another scheme', header: () => `Bearer ${'a'.repeat(64 * 1024)}`, code: 'not_authenticated' },
];

describe.each(authenticatedEndpoints.map((e) => [e.name, e] as [string, Endpoint]))('%s', (_name, endpoint) => {
  it('answers every bad credential with 401 in the error shape and writes nothing', async () => {
    const before = await world.eventCount();
    for (const { name, header, code } of cases()) {
      const value = header();
      const res = await world.request(endpoint, { authorization: value });
      await expectErrorBody(res, 401, code).catch((error: Error) => {
        throw new Error(`${name}: ${error.message}`);
      });
    }
    expect(await world.eventCount()).toBe(before);
  });
});

describe('over-long headers through the real HTTP server', () => {
  let server: ServerType;
  let base: string;
  beforeAll(async () => {
    server = serve({ fetch: world.api.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('an Authorization header under the 16 KiB header limit gets 401 in the error shape', async () => {
    const res = await checkedFetch(`${base}/v1/data-import/events/`, { headers: { authorization: `Token ${'a'.repeat(12 * 1024)}` } });
    await expectErrorBody(res, 401, 'authentication_failed');
  });

  it('headers over Node\'s 16 KiB limit are refused by the HTTP server with 431 before the app, never 500', async () => {
    const res = await checkedFetch(`${base}/v1/data-import/events/`, { headers: { authorization: `Token ${'a'.repeat(64 * 1024)}` } });
    expect(res.status).toBe(431);
  });
});
