import { sign } from 'hono/jwt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/application/operator.js';
import { hashApiKey } from '../../src/application/context.js';
import { obtainToken as issueToken } from '../../src/application/tokens.js';
import { expectErrorBody } from '../support/http.js';
import {
  SUPPLIER,
  TOKEN_SECRET,
  createTestApi,
  loadExample,
  obtainToken,
  operator,
  type TestApi,
} from '../support/ledger.js';

/**
 * Spec 5 (tokens through the GraphQL mutation, `Authorization: Token <token>`)
 * and the choices made where spec 5/7 leave it open: 401 not_authenticated
 * without credentials, 401 authentication_failed for a bad, expired or revoked
 * token, 403 permission_denied for a key not scoped to the supplier named.
 */

const SEVEN_DAYS = 7 * 24 * 60 * 60;
const PENDING_PATH = `/v1/data-import/pending-account-import-processes/${SUPPLIER}/`;
const VALIDATE_PATH = '/v1/data-import/validate-account/';

interface ObtainTokenResult {
  token: string;
  refreshToken: string;
  refreshExpiresIn: number;
}

interface GraphqlBody {
  data: { obtainToken: ObtainTokenResult | null } | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

async function mutate(api: TestApi, input: { APIKey?: string; refreshToken?: string }) {
  const res = await obtainToken(api.app, input);
  return { status: res.status, body: (await res.json()) as GraphqlBody };
}

/** A refused obtainToken: HTTP 200 (GraphQL convention), null data and one error with our code. */
async function expectTokenRefused(api: TestApi, input: { APIKey?: string; refreshToken?: string }, code: string) {
  const { status, body } = await mutate(api, input);
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.data?.obtainToken ?? null).toBeNull();
  expect(body.errors?.map((e) => e.extensions?.code)).toEqual([code]);
}

function jwtPayload(token: string): Record<string, unknown> {
  const parts = token.split('.');
  expect(parts).toHaveLength(3);
  return JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

/**
 * Tokens for the header tests come from the application service the mutation
 * calls, so that those tests fail only for a reason of their own; the GraphQL
 * tests above prove the mutation's tokens work on the same endpoints.
 */
const issue = (api: TestApi, apiKey = api.key) => issueToken(api.ledger, TOKEN_SECRET, { apiKey });

const nowSeconds = (api: TestApi) => Math.floor(api.clock.now.getTime() / 1000);

/** Both endpoints under test, driven with an arbitrary Authorization header (or none). */
const endpoints = [
  {
    name: 'GET pending list',
    call: (api: TestApi, authorization?: string) =>
      Promise.resolve(api.app.request(PENDING_PATH, { headers: authorization === undefined ? {} : { authorization } })),
  },
  {
    name: 'POST validate-account',
    call: (api: TestApi, authorization?: string) =>
      Promise.resolve(
        api.app.request(VALIDATE_PATH, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
          body: JSON.stringify(loadExample('account-domestic.json')),
        }),
      ),
  },
] as const;


describe('obtainToken mutation (POST /v1/graphql/)', () => {
  let api: TestApi;
  beforeEach(async () => {
    api = await createTestApi();
  });
  afterEach(() => api.close());

  it('exchanges a valid API key for a 60-minute JWT and a 7-day refresh token', async () => {
    const { status, body } = await mutate(api, { APIKey: api.key });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.errors).toBeUndefined();
    const issued = body.data?.obtainToken;
    expect(issued).toBeTruthy();
    if (!issued) return;
    expect(typeof issued.token).toBe('string');
    expect(typeof issued.refreshToken).toBe('string');
    expect(issued.refreshExpiresIn).toBe(nowSeconds(api) + SEVEN_DAYS);

    const payload = jwtPayload(issued.token);
    expect(payload['iat']).toBe(nowSeconds(api));
    expect(payload['exp']).toBe((payload['iat'] as number) + 60 * 60);

    const res = await api.get(PENDING_PATH, issued.token);
    expect(res.status).toBe(200);
  });

  it('exchanges a refresh token for a new working token', async () => {
    const first = (await mutate(api, { APIKey: api.key })).body.data?.obtainToken;
    if (!first) throw new Error('no token issued');
    api.clock.advanceSeconds(30 * 60);

    const { status, body } = await mutate(api, { refreshToken: first.refreshToken });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.errors).toBeUndefined();
    const renewed = body.data?.obtainToken;
    if (!renewed) throw new Error(`refresh refused: ${JSON.stringify(body)}`);
    expect(renewed.token).not.toBe(first.token);
    expect(jwtPayload(renewed.token)['iat']).toBe(nowSeconds(api));
    expect(renewed.refreshExpiresIn).toBe(first.refreshExpiresIn);

    // The first token would still be valid here; move past it to prove the new one stands on its own.
    api.clock.advanceSeconds(45 * 60);
    expect((await api.get(PENDING_PATH, first.token)).status).toBe(401);
    expect((await api.get(PENDING_PATH, renewed.token)).status).toBe(200);
  });

  it('refuses a wrong API key with authentication_failed', async () => {
    await expectTokenRefused(api, { APIKey: 'ilk_not-a-real-key' }, 'authentication_failed');
    await expectTokenRefused(api, { APIKey: `${api.key}x` }, 'authentication_failed');
  });

  it('refuses a revoked API key, and a refresh token of a revoked key', async () => {
    const issued = (await mutate(api, { APIKey: api.key })).body.data?.obtainToken;
    if (!issued) throw new Error('no token issued');
    await revokeApiKey(api.ledger, api.keyId, operator);
    await expectTokenRefused(api, { APIKey: api.key }, 'authentication_failed');
    await expectTokenRefused(api, { refreshToken: issued.refreshToken }, 'authentication_failed');
  });

  it('refuses an access token passed as a refresh token', async () => {
    const issued = (await mutate(api, { APIKey: api.key })).body.data?.obtainToken;
    if (!issued) throw new Error('no token issued');
    await expectTokenRefused(api, { refreshToken: issued.token }, 'authentication_failed');
    await expectTokenRefused(api, { refreshToken: 'garbage' }, 'authentication_failed');
  });

  it('reads the request from its JSON body only: a query, variables or operation name in the URL are not taken', async () => {
    const wrongKey = encodeURIComponent(JSON.stringify({ input: { APIKey: 'ilk_not-a-real-key' } }));
    const res = await api.app.request(`/v1/graphql/?variables=${wrongKey}&operationName=Other&query=${encodeURIComponent('{ ok }')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation($input: ObtainTokenInput!) { obtainToken(input: $input) { token } }', variables: { input: { APIKey: api.key } } }),
    });
    const body = (await res.json()) as GraphqlBody;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(typeof body.data?.obtainToken?.token).toBe('string');
  });

  it('refuses both or neither input with invalid_input', async () => {
    const issued = (await mutate(api, { APIKey: api.key })).body.data?.obtainToken;
    if (!issued) throw new Error('no token issued');
    await expectTokenRefused(api, { APIKey: api.key, refreshToken: issued.refreshToken }, 'invalid_input');
    await expectTokenRefused(api, {}, 'invalid_input');
  });

  it('refuses a refresh token past its 7 days', async () => {
    const issued = (await mutate(api, { APIKey: api.key })).body.data?.obtainToken;
    if (!issued) throw new Error('no token issued');
    api.clock.advanceSeconds(SEVEN_DAYS - 60);
    expect((await mutate(api, { refreshToken: issued.refreshToken })).body.data?.obtainToken).toBeTruthy();
    api.clock.advanceSeconds(61);
    await expectTokenRefused(api, { refreshToken: issued.refreshToken }, 'authentication_failed');
  });
});

describe.each(endpoints)('Authorization on $name', ({ call }) => {
  let api: TestApi;
  beforeEach(async () => {
    api = await createTestApi();
  });
  afterEach(() => api.close());

  it('answers 200 with a valid token of a key scoped to the supplier', async () => {
    const res = await call(api, `Token ${(await issue(api)).token}`);
    expect(res.status).toBe(200);
  });

  it('401 not_authenticated without an Authorization header', async () => {
    await expectErrorBody(await call(api), 401, 'not_authenticated');
  });

  it('401 not_authenticated with another scheme', async () => {
    const token = (await issue(api)).token;
    await expectErrorBody(await call(api, `Bearer ${token}`), 401, 'not_authenticated');
    await expectErrorBody(await call(api, `Basic ${Buffer.from('user:pass').toString('base64')}`), 401, 'not_authenticated');
  });

  it('401 authentication_failed with the Token scheme and nothing after it', async () => {
    await expectErrorBody(await call(api, 'Token'), 401, 'authentication_failed');
    await expectErrorBody(await call(api, 'Token '), 401, 'authentication_failed');
  });

  it('401 authentication_failed with a garbage token', async () => {
    await expectErrorBody(await call(api, 'Token not-a-jwt'), 401, 'authentication_failed');
    await expectErrorBody(await call(api, 'Token a.b.c'), 401, 'authentication_failed');
  });

  it('401 authentication_failed with a token signed with another secret', async () => {
    const genuine = jwtPayload((await issue(api)).token);
    const forged = await sign(genuine, 'another-secret-0123456789-0123456789-0123456789', 'HS256');
    await expectErrorBody(await call(api, `Token ${forged}`), 401, 'authentication_failed');
  });

  it('401 authentication_failed with a refresh token used as an access token', async () => {
    const issued = await issue(api);
    await expectErrorBody(await call(api, `Token ${issued.refreshToken}`), 401, 'authentication_failed');
  });

  it('401 authentication_failed with an expired token', async () => {
    const token = (await issue(api)).token;
    api.clock.advanceSeconds(59 * 60);
    expect((await call(api, `Token ${token}`)).status).toBe(200);
    api.clock.advanceSeconds(2 * 60);
    await expectErrorBody(await call(api, `Token ${token}`), 401, 'authentication_failed');
  });

  it('401 authentication_failed with a token signed with the secret but claims out of bounds', async () => {
    const genuine = jwtPayload((await issue(api)).token);
    const now = nowSeconds(api);
    const signed = async (claims: Record<string, unknown>) => `Token ${await sign({ ...genuine, ...claims }, TOKEN_SECRET, 'HS256')}`;
    // Within the documented skew (60 s) a token issued by an instance whose clock runs ahead is taken.
    expect((await call(api, await signed({ iat: now + 30, nbf: now + 30, exp: now + 30 + 3600 }))).status).toBe(200);
    for (const [claims, detail] of [
      [{ iat: now + 120, exp: now + 120 + 3600 }, 'Token is not valid yet.'],
      [{ nbf: now + 120 }, 'Token is not valid yet.'],
      [{ nbf: 'soon' }, 'Token is not valid yet.'],
      [{ exp: now + 10 * 365 * 24 * 3600 }, 'Invalid token.'],
      [{ exp: (genuine['iat'] as number) + 3601 }, 'Invalid token.'],
      [{ iat: undefined }, 'Invalid token.'],
    ] as const) {
      const body = await expectErrorBody(await call(api, await signed(claims)), 401, 'authentication_failed');
      expect(body.detail, JSON.stringify(claims)).toBe(detail);
    }
  });

  it('401 authentication_failed naming the cause for a token of a key that never existed, and of a revoked one', async () => {
    const genuine = jwtPayload((await issue(api)).token);
    const unknown = await sign({ ...genuine, sub: 'key-that-never-existed' }, TOKEN_SECRET, 'HS256');
    const body = await expectErrorBody(await call(api, `Token ${unknown}`), 401, 'authentication_failed');
    expect(body.detail).toBe('The API key behind this token does not exist.');
    const token = (await issue(api)).token;
    await revokeApiKey(api.ledger, api.keyId, operator);
    const revoked = await expectErrorBody(await call(api, `Token ${token}`), 401, 'authentication_failed');
    expect(revoked.detail).toBe('The API key behind this token has been revoked.');
  });

  it('401 authentication_failed with a token whose key was revoked after it was issued', async () => {
    const token = (await issue(api)).token;
    expect((await call(api, `Token ${token}`)).status).toBe(200);
    await revokeApiKey(api.ledger, api.keyId, operator);
    await expectErrorBody(await call(api, `Token ${token}`), 401, 'authentication_failed');
  });

  it('403 permission_denied with a valid token of a key scoped to another supplier', async () => {
    const res = await call(api, `Token ${(await issue(api, api.otherKey)).token}`);
    await expectErrorBody(res, 403, 'permission_denied');
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  // The platform accepts the API key itself in `Token <key>` besides the token.
  it('answers 200 with the API key itself of a key scoped to the supplier', async () => {
    expect((await call(api, `Token ${api.key}`)).status).toBe(200);
  });

  it('403 permission_denied with the API key itself of a key scoped to another supplier', async () => {
    await expectErrorBody(await call(api, `Token ${api.otherKey}`), 403, 'permission_denied');
  });

  it('401 authentication_failed with an unknown API key, or one a character off', async () => {
    await expectErrorBody(await call(api, 'Token ilk_not-a-real-key'), 401, 'authentication_failed');
    await expectErrorBody(await call(api, `Token ${api.key}x`), 401, 'authentication_failed');
    await expectErrorBody(await call(api, `Token ${api.key.slice(0, -1)}`), 401, 'authentication_failed');
  });

  it('401 authentication_failed with the API key itself once it is revoked, at once', async () => {
    expect((await call(api, `Token ${api.key}`)).status).toBe(200);
    await revokeApiKey(api.ledger, api.keyId, operator);
    await expectErrorBody(await call(api, `Token ${api.key}`), 401, 'authentication_failed');
  });
});

describe('API key as the credential', () => {
  let api: TestApi;
  beforeEach(async () => {
    api = await createTestApi();
  });
  afterEach(() => api.close());

  it('stages an account with `Token <API key>`, recorded as that key, like a token of the key', async () => {
    const res = await api.post('/v1/data-import/account-import-process/create-or-update/', loadExample('account-domestic.json'), api.key);
    expect(res.status).toBe(201);
    const account = loadExample('account-domestic.json');
    const stream = await api.ledger.store.readStream(`account-import-process:${SUPPLIER}:${String(account['external_account_number'])}`);
    expect(stream.map((stored) => stored.metadata.actor)).toEqual([api.keyId]);
  });

  it('obtainToken still takes the key; a JWT is never taken for a key (the dot tells them apart)', async () => {
    const token = (await issue(api)).token;
    expect(token.split('.')).toHaveLength(3);
    expect(api.key).not.toContain('.');
    expect((await api.get(PENDING_PATH, token)).status).toBe(200);
    expect((await api.get(PENDING_PATH, api.key)).status).toBe(200);
  });
});

describe('API key storage', () => {
  let api: TestApi;
  beforeEach(async () => {
    api = await createTestApi();
  });
  afterEach(() => api.close());

  it('keeps only the hash of a key: the plain key is in neither the events nor the api_keys table', async () => {
    const { key, keyId } = await createApiKey(api.ledger, { suppliers: [SUPPLIER], label: 'hash check' }, operator);
    // Read from outside the service, on connections of its own.
    const events = await api.execute('SELECT * FROM events');
    const keys = await api.execute('SELECT * FROM api_keys');
    expect(events.length).toBeGreaterThan(0);
    const dump = JSON.stringify([events, keys]);
    for (const secret of [key, api.key, api.otherKey]) {
      expect(dump).not.toContain(secret);
      // Not even the random part without its prefix.
      expect(dump).not.toContain(secret.replace(/^ilk_/, ''));
    }
    const row = keys.find((r) => r['key_id'] === keyId);
    expect(row?.['key_hash']).toBe(hashApiKey(key));
    expect(JSON.stringify(events)).toContain(hashApiKey(key));
  });
});
