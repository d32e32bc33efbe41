import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import { every } from 'hono/combine';
import { DomainError } from '../domain/errors.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './errors.js';

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * For requests with a body: 415 unless the content type is JSON, 413 past
 * `maxBytes` (counted on the stream, so chunked bodies and bodies with a wrong
 * Content-Length are caught too), 400 parse_error for malformed JSON. The
 * parsed body is cached by Hono for the route's validator. `parse: false`
 * leaves the body unread for handlers that parse it themselves (GraphQL).
 */
export function jsonBody(maxBytes: number, options: { parse: boolean } = { parse: true }) {
  const requireJson = createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const type = c.req.header('content-type') ?? '';
    if (!JSON_CONTENT_TYPE.test(type)) {
      return errorResponse(c, new DomainError('unsupported_media_type', `Unsupported media type "${type}": send application/json.`));
    }
    await next();
  });
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => errorResponse(c, new DomainError('payload_too_large', `Request body is larger than ${maxBytes} bytes.`)),
  });
  const parse = createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    try {
      await c.req.json();
    } catch {
      return errorResponse(c, new DomainError('parse_error', 'JSON parse error: the request body is not valid JSON.'));
    }
    await next();
  });
  return options.parse ? every(requireJson, limit, parse) : every(requireJson, limit);
}
