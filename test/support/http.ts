import { expect } from 'vitest';
import { obtainToken } from '../../src/application/tokens.js';
import { TOKEN_SECRET, type TestApi } from './ledger.js';

export interface ErrorItem {
  detail: string;
  code: string;
  attr: string;
}

export interface ErrorBody {
  detail: string;
  code: string;
  errors: ErrorItem[];
  [extra: string]: unknown;
}

/**
 * Spec 7: exactly `{detail, code, errors}` plus the extras named, each item
 * exactly `{detail, code, attr}`. `code` may be an asymmetric matcher (or
 * undefined) where the spec does not fix the top-level code.
 */
export async function expectErrorBody(
  res: Response,
  status: number,
  code?: unknown,
  extras: readonly string[] = [],
): Promise<ErrorBody> {
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await res.json()) as ErrorBody;
  expect({ status: res.status, code: body.code }).toEqual({ status, code: code ?? expect.any(String) });
  expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'errors', ...extras].sort());
  expect(typeof body.detail).toBe('string');
  expect(body.detail.length).toBeGreaterThan(0);
  expect(typeof body.code).toBe('string');
  expect(Array.isArray(body.errors)).toBe(true);
  expect(body.errors.length).toBeGreaterThan(0);
  for (const item of body.errors) {
    expect(Object.keys(item).sort()).toEqual(['attr', 'code', 'detail']);
    expect(typeof item.detail).toBe('string');
    expect(typeof item.code).toBe('string');
    expect(typeof item.attr).toBe('string');
  }
  if (status === 401) expect(res.headers.get('www-authenticate')).toBe('Token');
  return body;
}

/**
 * An access token for `key` (default: the test key), issued by the same
 * service the GraphQL mutation calls. Token issuance over HTTP is
 * auth.test.ts's subject; going through the application keeps the other
 * HTTP tests independent of the GraphQL route.
 */
export async function accessToken(testApi: TestApi, key: string = testApi.key): Promise<string> {
  return (await obtainToken(testApi.ledger, TOKEN_SECRET, { apiKey: key })).token;
}
