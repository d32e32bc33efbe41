import { createMiddleware } from 'hono/factory';
import { every } from 'hono/combine';
import { DomainError } from '../domain/errors.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './errors.js';
import { jsonLimitProblem } from './json-limits.js';

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * For requests with a body: 415 unless the content type is JSON, 413 past
 * `maxBytes` (counted on the stream, so chunked bodies and bodies with a wrong
 * Content-Length are caught too), 400 parse_error for malformed JSON, 400 for
 * a body past the structural limits of json-limits.ts. The body text is
 * cached by Hono for the route's `c.req.json()` and validator. `parse: false`
 * checks a copy and leaves the request's body unread, for handlers that read
 * the raw request themselves (GraphQL).
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
  const limit = createMiddleware<AppEnv>(async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const tooLarge = () => errorResponse(c, new DomainError('payload_too_large', `Request body is larger than ${maxBytes} bytes.`));
    const declared = c.req.header('content-length');
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) return tooLarge();
    // Counted on the stream whatever Content-Length says: chunked bodies, and a header that understates the body.
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return tooLarge();
      }
      chunks.push(value);
    }
    const bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    c.req.raw = new Request(c.req.raw, { body: bytes });
    await next();
  });
  const parse = createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    let text: string;
    try {
      // A handler that parses the body itself (GraphQL) reads the raw request: check a copy, leave it unread.
      text = options.parse ? await c.req.text() : await c.req.raw.clone().text();
      JSON.parse(text);
    } catch {
      return errorResponse(c, new DomainError('parse_error', 'JSON parse error: the request body is not valid JSON.'));
    }
    // Limits on the parsed structure, before any schema sees it (json-limits.ts).
    const problem = jsonLimitProblem(text);
    if (problem) return errorResponse(c, problem);
    await next();
  });
  return every(requireJson, limit, parse);
}
