import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { requestId } from 'hono/request-id';
import type { Logger } from 'pino';
import type { AppEnv } from './env.js';
import { parseTraceparent } from './trace-context.js';

/** The longest caller `X-Request-Id` kept (it is recorded in every event the request writes). */
export const MAX_REQUEST_ID_LENGTH = 128;

/**
 * Which requests get a log line of their own (LEDGER_ACCESS_LOG): `failures`, those answered 4xx or 5xx or
 * slower than a second (a migration sends millions of requests; the metrics count them all); `all`, every one.
 */
export type AccessLog = 'all' | 'failures';

/** A request this slow is logged whatever `failures` says. */
const SLOW_MS = 1_000;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane: at
 * most 128 characters of letters, digits, `_`, `-` and `=`; else a new UUID),
 * echoes it, takes the caller's W3C `traceparent` when it is valid, and a
 * child logger that carries both; logs a line when a request completes, as `accessLog` says (at error for a
 * 5xx, but a starting instance's probes). Both reach the metadata of the events the request writes.
 */
export function requestContext(logger: Logger, newId: () => string, accessLog: AccessLog = 'all'): MiddlewareHandler<AppEnv>[] {
  const log = createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    const traceparent = parseTraceparent(c.req.header('traceparent'));
    c.set('traceparent', traceparent ?? undefined);
    const child = logger.child(traceparent ? { requestId: c.get('requestId'), traceparent } : { requestId: c.get('requestId') });
    c.set('logger', child);
    await next();
    const status = c.res.status;
    const ms = Math.round(performance.now() - started);
    if (accessLog === 'failures' && status < 400 && ms < SLOW_MS) return;
    const fields = { method: c.req.method, path: c.req.path, status, ms };
    if (status >= 500 && !c.get('expectedUnavailable')) c.get('logger').error(fields, 'request failed');
    else c.get('logger').info(fields, 'request completed');
  });
  return [requestId({ limitLength: MAX_REQUEST_ID_LENGTH, generator: () => newId() }), log];
}
