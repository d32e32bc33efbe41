/**
 * The migrate command's only door to the service: every HTTP call it makes goes through here, over Node's
 * global fetch (undici). Kept small and typed by what the command needs, not by the API's every field, so
 * that switching to the client generated from the OpenAPI document (its own issue) touches this file only.
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
}

export interface PostOptions {
  readonly token: string;
  /** Sent as Idempotency-Key: the service stores the first answer and replays it for a retry. */
  readonly idempotencyKey?: string;
}

export interface ApiClient {
  post(path: string, body: unknown, options: PostOptions): Promise<ApiAnswer>;
  get(path: string, token: string): Promise<ApiAnswer>;
  /** POST /v1/graphql/ (no token: the token mutation is how one gets a token). */
  graphql(query: string, variables: Record<string, unknown>): Promise<ApiAnswer>;
}

/** Parses a Retry-After value: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const send = async (path: string, init: RequestInit): Promise<ApiAnswer> => {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(options.timeoutMs) });
      text = await res.text();
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new NoAnswer(`${init.method ?? 'GET'} ${path}: ${error instanceof Error ? error.message : String(error)}${cause}`);
    }
    let body: unknown = text;
    if (text.length > 0 && (res.headers.get('content-type') ?? '').includes('json')) {
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        body = text;
      }
    }
    const next = /<([^>]+)>\s*;\s*rel="?next"?/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
    return { status: res.status, body, retryAfterMs: parseRetryAfter(res.headers.get('retry-after')), next, replayed: res.headers.get('idempotent-replayed') === 'true' };
  };
  return {
    post: (path, body, { token, idempotencyKey }) =>
      send(path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Token ${token}`,
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: JSON.stringify(body),
      }),
    get: (path, token) => send(path, { method: 'GET', headers: { authorization: `Token ${token}` } }),
    graphql: (query, variables) =>
      send('/v1/graphql/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) }),
  };
}
