import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * The migrate command's only door to the service: every HTTP call it makes goes through here. Kept
 * small and typed by what the command needs, not by the API's every field, so that switching to the
 * client generated from the OpenAPI document (its own issue) touches this file only.
 *
 * Node's own http client with a keep-alive agent, not fetch: the command shares the machine with the
 * service more often than not, and WHATWG fetch costs about twice the CPU per request (its streams and
 * Request/Response objects), CPU the service would otherwise use (bench: "migrate 2,000 accounts").
 *
 * Answers are returned as data, never thrown: the caller classifies them by HTTP status (see retry.ts) and
 * keeps error codes as data for the report, so renamed codes change the report, not the control flow.
 * Only a failure to get an answer at all (refused, reset, timed out) throws `NoAnswer`.
 */

/** What came back from one request. `body` is the parsed JSON, or the raw text when it is not JSON. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
  /** The Retry-After header in milliseconds (seconds or an HTTP date), when the answer carries one. */
  readonly retryAfterMs: number | null;
  /** The target of the Link header's rel="next" (paged lists), as sent. */
  readonly next: string | null;
  /** Idempotent-Replayed: true: the service answered from its key store (the write was applied earlier). */
  readonly replayed: boolean;
}

/** No answer at all: connection refused or reset, DNS, or the per-request timeout. Always transient. */
export class NoAnswer extends Error {
  override name = 'NoAnswer';
}

export interface ApiClientOptions {
  /** The service's base URL, e.g. http://127.0.0.1:8080 (a path prefix is kept). */
  readonly baseUrl: string;
  /** Time allowed for one request, answer included. */
  readonly timeoutMs: number;
  /** Connections kept open to the service (the command's concurrency, and a few more). */
  readonly maxSockets?: number;
}

export interface PostOptions {
  readonly token: string;
  /** Sent as Idempotency-Key: the service stores the first answer and replays it for a retry. */
  readonly idempotencyKey?: string;
}

/** A request body: JSON text as it is (an input file's or line's own bytes), or a value to serialise. */
export type Body = { readonly json: string } | { readonly value: unknown };

export interface ApiClient {
  post(path: string, body: Body, options: PostOptions): Promise<ApiAnswer>;
  get(path: string, token: string): Promise<ApiAnswer>;
  /** POST /v1/graphql/ (no token: the token mutation is how one gets a token). */
  graphql(query: string, variables: Record<string, unknown>): Promise<ApiAnswer>;
  close(): void;
}

/** Parses a Retry-After value: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

const header = (headers: IncomingHttpHeaders, name: string): string | null => {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
};

export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const https = base.protocol === 'https:';
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16 };
  const agent = https ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const send = (method: 'GET' | 'POST', path: string, headers: Record<string, string>, payload: string | null): Promise<ApiAnswer> =>
    new Promise((resolve, reject) => {
      const fail = (error: Error) => reject(new NoAnswer(`${method} ${path}: ${error.message}`));
      const req = (https ? httpsRequest : httpRequest)(
        {
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port,
          method,
          path: `${prefix}${path}`,
          agent,
          headers: payload === null ? headers : { ...headers, 'content-length': String(Buffer.byteLength(payload)) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', fail);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            if (text.length > 0 && (header(res.headers, 'content-type') ?? '').includes('json')) {
              try {
                body = JSON.parse(text) as unknown;
              } catch {
                body = text;
              }
            }
            resolve({
              status: res.statusCode ?? 0,
              body,
              retryAfterMs: parseRetryAfter(header(res.headers, 'retry-after')),
              next: /<([^>]+)>\s*;\s*rel="?next"?/.exec(header(res.headers, 'link') ?? '')?.[1] ?? null,
              replayed: header(res.headers, 'idempotent-replayed') === 'true',
            });
          });
        },
      );
      req.setTimeout(options.timeoutMs, () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
      req.on('error', fail);
      req.end(payload ?? undefined);
    });
  const text = (body: Body) => ('json' in body ? body.json : JSON.stringify(body.value));
  return {
    post: (path, body, { token, idempotencyKey }) =>
      send(
        'POST',
        path,
        { 'content-type': 'application/json', authorization: `Token ${token}`, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
        text(body),
      ),
    get: (path, token) => send('GET', path, { authorization: `Token ${token}` }, null),
    graphql: (query, variables) => send('POST', '/v1/graphql/', { 'content-type': 'application/json' }, JSON.stringify({ query, variables })),
    close: () => agent.destroy(),
  };
}
