import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { errorAnswer } from '../answers/errors.js';
import type { ErrorCode } from '../domain/error-codes.js';
import { DomainError, type DomainErrorOptions } from '../domain/errors.js';
import { ConcurrencyError } from '../store/event-store.js';
import { storeUnavailable } from '../store/store-faults.js';
import { answer } from './answer.js';

/** The error body of spec section 7, for the OpenAPI document: every 4xx answer has this shape. */
export const errorBodySchema = z
  .object({
    detail: z.string(),
    code: z.string(),
    errors: z.array(z.object({ detail: z.string(), code: z.string(), attr: z.string() })),
  })
  .catchall(z.unknown());

/**
 * A DomainError raised by the HTTP layer itself that also sets response
 * headers (`Retry-After` on a 429). Headers are an HTTP concern, so they ride
 * on this subclass rather than on the domain's DomainError; middleware throws
 * it like any error and errorResponse applies them.
 */
export class DomainErrorWithHeaders extends DomainError {
  constructor(
    code: ErrorCode,
    detail: string,
    readonly headers: Readonly<Record<string, string>>,
    options: DomainErrorOptions = {},
  ) {
    super(code, detail, options);
    this.name = 'DomainErrorWithHeaders';
  }
}

/** 429 `throttled`: the caller may retry after `retryAfterSeconds` (the concurrency and the request-rate limits). */
export const throttled = (detail: string, retryAfterSeconds: number): DomainErrorWithHeaders =>
  new DomainErrorWithHeaders('throttled', detail, { 'Retry-After': String(retryAfterSeconds) });

/**
 * Responds with a DomainError in the spec's shape and the status its code maps
 * to; every 401 names the `Token` scheme, and headers the error carries are set.
 * `app.onError` calls it for everything thrown; `headers` is for callers that
 * answer without throwing.
 */
export function errorResponse(c: Context, error: DomainError, headers?: Record<string, string>): Response {
  const rendered = errorAnswer(error, c.req.path);
  if (rendered.status === 401) c.header('WWW-Authenticate', 'Token');
  const carried = error instanceof DomainErrorWithHeaders ? error.headers : {};
  for (const [name, value] of Object.entries({ ...carried, ...headers })) c.header(name, value);
  return answer(c, rendered);
}

/** Maps anything thrown while handling a request; unknown errors become a 500 without internals. */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof ConcurrencyError) {
    return new DomainError('concurrency_conflict', 'The resource was changed concurrently; retry the request.');
  }
  // The store's "retry", and a driver's error that says the database is not available now (down, restarting,
  // the connection lost, the disk full, the file read-only): a 503 the caller retries, never a 500.
  const unavailable = storeUnavailable(error);
  if (unavailable) {
    return new DomainErrorWithHeaders('store_unavailable', `The store cannot serve the request now (${unavailable.error.message}); retry it.`, { 'Retry-After': '1' });
  }
  if (error instanceof HTTPException) {
    const code: ErrorCode = error.status === 413 ? 'payload_too_large' : error.status === 415 ? 'unsupported_media_type' : 'parse_error';
    return new DomainError(code, error.message || 'Bad request.');
  }
  return new DomainError('internal_error', 'An unexpected error occurred.');
}
