import { afterEach, describe, expect, it, vi } from 'vitest';
import { accessToken, expectErrorBody } from '../support/http.js';
import { SUPPLIER, createTestApi, loadExample, type TestApi } from '../support/ledger.js';

/**
 * What every request goes through before a route sees it: JSON body parsing
 * with a size limit, trailing slashes exactly as the spec writes paths, the
 * request id, and the health check.
 */

const VALIDATE = '/v1/data-import/validate-account/';
const LIMIT = 2048;



/**
 * A JSON object of exactly `bytes` bytes. It is not an account, so a request
 * that gets past the size limit and the parser ends in account validation.
 */
function jsonOfSize(bytes: number): string {
  const base = JSON.stringify({ padding: '' });
  const text = JSON.stringify({ padding: 'x'.repeat(bytes - base.length) });
  expect(Buffer.byteLength(text)).toBe(bytes);
  return text;
}

/** A body stream without a length: the size is only known by reading it. */
function streamOf(text: string, chunkSize = 512): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

let api: TestApi;

afterEach(() => {
  api.close();
});

describe('request bodies', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ['no content type', undefined],
    ['JSON in UTF-16', 'application/json; charset=utf-16'],
    ['JSON in Latin-1, quoted', 'application/json; charset="ISO-8859-1"'],
    ['not a media type', 'json'],
  ])('answers 415 for %s', async (_name, contentType) => {
    api = await createTestApi();
    const token = await accessToken(api);
    const headers: Record<string, string> = { authorization: `Token ${token}` };
    if (contentType !== undefined) headers['content-type'] = contentType;
    const res = await api.app.request(VALIDATE, {
      method: 'POST',
      headers,
      body: JSON.stringify(loadExample('account-domestic.json')),
    });
    await expectErrorBody(res, 415);
  });

  it.each(['application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json; charset=utf8', 'application/merge-patch+json'])(
    'accepts %s',
    async (contentType) => {
      api = await createTestApi();
      const token = await accessToken(api);
      const res = await api.post(VALIDATE, loadExample('account-domestic.json'), token, { 'content-type': contentType });
      expect(res.status).toBe(200);
    },
  );

  it.each([
    ['a truncated object', '{"external_account_number": "LEG-1", '],
    ['a trailing comma', '{"a": 1,}'],
    ['a bare word', 'account'],
  ])('answers 400 parse_error for malformed JSON: %s', async (_name, text) => {
    api = await createTestApi();
    const token = await accessToken(api);
    await expectErrorBody(await api.post(VALIDATE, text, token), 400, 'parse_error');
  });

  it('parses a body once, however many readers ask for it (the stage route asks twice; it was parsed three times)', async () => {
    api = await createTestApi();
    const token = await accessToken(api);
    const text = JSON.stringify(loadExample('account-domestic.json'));
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const res = await api.post('/v1/data-import/account-import-process/create-or-update/', text, token);
      expect(res.status).toBe(201);
      expect(parse.mock.calls.filter(([parsed]) => parsed === text)).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('answers 400 parse_error for malformed JSON on process/ too', async () => {
    api = await createTestApi();
    const token = await accessToken(api);
    await expectErrorBody(await api.post('/v1/data-import/account-import-process/process/', '{"dry_run": tru', token), 400, 'parse_error');
  });

  it('reads a body of exactly the limit (it reaches account validation)', async () => {
    api = await createTestApi({ maxBodyBytes: LIMIT });
    const token = await accessToken(api);
    const body = jsonOfSize(LIMIT);
    const res = await api.post(VALIDATE, body, token, { 'content-length': String(LIMIT) });
    await expectErrorBody(res, 400, 'account_failed_validation');
  });

  it('answers 413 for a body over the limit sent with Content-Length', async () => {
    api = await createTestApi({ maxBodyBytes: LIMIT });
    const token = await accessToken(api);
    const body = jsonOfSize(LIMIT + 1);
    const res = await api.post(VALIDATE, body, token, { 'content-length': String(LIMIT + 1) });
    await expectErrorBody(res, 413);
  });

  it('answers 413 for a body over the limit sent as a stream without Content-Length', async () => {
    api = await createTestApi({ maxBodyBytes: LIMIT });
    const token = await accessToken(api);
    const request = new Request(`http://localhost${VALIDATE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
      body: streamOf(jsonOfSize(LIMIT * 4)),
      duplex: 'half',
    } as RequestInit);
    expect(request.headers.has('content-length')).toBe(false);
    await expectErrorBody(await api.app.request(request), 413);
  });

  it('answers 413 for an over-limit stream on process/ too', async () => {
    api = await createTestApi({ maxBodyBytes: LIMIT });
    const token = await accessToken(api);
    const body = JSON.stringify({
      external_account_number: 'LEG-0000001',
      import_supplier_code: SUPPLIER,
      operations_team_name: 'x'.repeat(LIMIT * 2),
    });
    const request = new Request('http://localhost/v1/data-import/account-import-process/process/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
      body: streamOf(body),
      duplex: 'half',
    } as RequestInit);
    await expectErrorBody(await api.app.request(request), 413);
  });

  it('reads a streamed body of exactly the limit (it reaches account validation)', async () => {
    api = await createTestApi({ maxBodyBytes: LIMIT });
    const token = await accessToken(api);
    const request = new Request(`http://localhost${VALIDATE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
      body: streamOf(jsonOfSize(LIMIT), 100),
      duplex: 'half',
    } as RequestInit);
    await expectErrorBody(await api.app.request(request), 400, 'account_failed_validation');
  });
});

describe('paths', () => {
  const withoutSlash: readonly ['GET' | 'POST', string][] = [
    ['POST', '/v1/data-import/validate-account'],
    ['POST', '/v1/data-import/account-import-process/create-or-update'],
    ['POST', '/v1/data-import/account-import-process/process'],
    ['GET', `/v1/data-import/account-transfer-status/${SUPPLIER}/LEG-0000001`],
    ['GET', `/v1/data-import/all-account-import-processes/${SUPPLIER}`],
    ['GET', `/v1/data-import/pending-account-import-processes/${SUPPLIER}`],
    ['GET', `/v1/data-import/imported-account-import-processes/${SUPPLIER}`],
  ];

  it.each(withoutSlash)('%s %s (no trailing slash) is 404 in the error shape', async (method, path) => {
    api = await createTestApi();
    const token = await accessToken(api);
    const res =
      method === 'GET' ? await api.get(path, token) : await api.post(path, loadExample('account-domestic.json'), token);
    await expectErrorBody(res, 404);
  });

  it.each([
    ['PUT', `/v1/data-import/pending-account-import-processes/${SUPPLIER}/`, 'GET, HEAD'],
    ['DELETE', `/v1/data-import/account-transfer-status/${SUPPLIER}/LEG-0000001/`, 'GET, HEAD'],
    ['PATCH', '/v1/data-import/events/', 'GET, HEAD'],
    ['POST', `/v1/data-import/all-account-import-processes/${SUPPLIER}/`, 'GET, HEAD'],
    ['GET', '/v1/data-import/validate-account/', 'POST'],
    ['PUT', '/healthz', 'GET, HEAD'],
  ])('%s %s is 405 method_not_allowed with Allow: %s, whatever the body or the credentials', async (method, path, allow) => {
    api = await createTestApi();
    const res = await api.app.request(path, { method, headers: { 'content-type': 'text/plain' }, body: method === 'GET' ? undefined : 'x' });
    expect(res.headers.get('allow')).toBe(allow);
    await expectErrorBody(res, 405, 'method_not_allowed');
  });

  it('an unknown path is 404 in the error shape', async () => {
    api = await createTestApi();
    await expectErrorBody(await api.app.request('/no/such/path/'), 404);
  });
});

describe('X-Request-Id', () => {
  it('is echoed back when the caller sends one', async () => {
    api = await createTestApi();
    const res = await api.app.request('/healthz', { headers: { 'x-request-id': 'caller-req-42' } });
    expect(res.headers.get('x-request-id')).toBe('caller-req-42');
  });

  it('is echoed back on API responses and error responses', async () => {
    api = await createTestApi();
    const token = await accessToken(api);
    const ok = await api.post(VALIDATE, loadExample('account-domestic.json'), token, { 'x-request-id': 'req-ok-1' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('req-ok-1');
    const failed = await api.post(VALIDATE, '{', token, { 'x-request-id': 'req-bad-1' });
    expect(failed.status).toBe(400);
    expect(failed.headers.get('x-request-id')).toBe('req-bad-1');
    const unauthenticated = await api.app.request(`/v1/data-import/all-account-import-processes/${SUPPLIER}/`, {
      headers: { 'x-request-id': 'req-401-1' },
    });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('x-request-id')).toBe('req-401-1');
  });

  it('is generated, and different per request, when the caller sends none', async () => {
    api = await createTestApi();
    const first = (await api.app.request('/healthz')).headers.get('x-request-id');
    const second = (await api.app.request('/healthz')).headers.get('x-request-id');
    expect(first).toEqual(expect.any(String));
    expect(first?.length).toBeGreaterThan(0);
    expect(second).toEqual(expect.any(String));
    expect(second).not.toBe(first);
  });
});

describe('GET /healthz', () => {
  it('answers 200 {"status":"ok"} without a token', async () => {
    api = await createTestApi();
    const res = await api.app.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({ status: 'ok' });
  });
});
