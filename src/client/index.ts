import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api-types.js';

export type { paths } from './api-types.js';

/**
 * A typed client of the service's HTTP API, from its OpenAPI document
 * (`npm run openapi` regenerates ./api-types.ts): paths, bodies and answers
 * are checked by the compiler. `token` is sent as `Authorization: Token <token>`.
 */
export function createLedgerClient(baseUrl: string, token?: string, fetchImpl?: typeof fetch): Client<paths> {
  return createClient<paths>({
    baseUrl,
    ...(token ? { headers: { authorization: `Token ${token}` } } : {}),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}
