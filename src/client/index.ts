import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api-types.js';

export type { paths } from './api-types.js';
export { NoAnswer, createNodeHttpTransport, type NodeHttpTransport, type NodeHttpTransportOptions, type PlainAnswer, type PlainRequestInit, type StreamedAnswer } from './node-http-transport.js';

/** What carries the requests: a fetch, or a fetch with the Request class it expects (see node-http-transport.ts). */
export type Transport = typeof fetch | { readonly fetch: (input: Request) => Promise<Response>; readonly Request?: typeof Request };

/** A typed client of the service's HTTP API, from its OpenAPI document (`npm run openapi` regenerates ./api-types.ts). */
export function createLedgerClient(baseUrl: string, token?: string, transport?: Transport): Client<paths> {
  const carrier = typeof transport === 'function' ? { fetch: transport } : transport;
  return createClient<paths>({
    baseUrl,
    ...(token ? { headers: { authorization: `Token ${token}` } } : {}),
    ...(carrier ? { fetch: carrier.fetch, ...('Request' in carrier && carrier.Request ? { Request: carrier.Request } : {}) } : {}),
  });
}
