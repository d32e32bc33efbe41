import { createMiddleware } from 'hono/factory';
import { requestId } from 'hono/request-id';
import { every } from 'hono/combine';
import type { Logger } from 'pino';
import type { AppEnv } from './env.js';

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane, else
 * a new UUID), echoes it, and a child logger that carries it; logs one line
 * per request when it completes.
 */
export function requestContext(logger: Logger, newId: () => string) {
  const log = createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    const child = logger.child({ requestId: c.get('requestId') });
    c.set('logger', child);
    await next();
    const status = c.res.status;
    const fields = { method: c.req.method, path: c.req.path, status, ms: Math.round(performance.now() - started) };
    if (status >= 500) c.get('logger').error(fields, 'request failed');
    else c.get('logger').info(fields, 'request completed');
  });
  return every(requestId({ generator: () => newId() }), log);
}
