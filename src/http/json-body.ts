import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { MIMEType } from 'node:util';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { DomainError } from '../domain/errors.js';
import type { AppEnv } from './env.js';
import { jsonLimitProblem } from './json-limits.js';

const JSON_ESSENCE = /^application\/(?:[\w.+-]+\+)?json$/;

/**
 * Why a Content-Type is refused, or null for JSON (application/json or a +json type) in UTF-8,
 * the only encoding JSON bodies are read in (RFC 8259).
 */
function contentTypeProblem(contentType: string): string | null {
  let type: MIMEType | null = null;
  try {
    type = new MIMEType(contentType);
  } catch {
    // Not a media type at all: refused below like any other type.
  }
  if (type === null || !JSON_ESSENCE.test(type.essence)) return `Unsupported media type "${contentType}": send application/json.`;
  const charset = type.params.get('charset')?.toLowerCase();
  if (charset === undefined || charset === 'utf-8' || charset === 'utf8') return null;
  return `Unsupported charset "${charset}": send application/json in UTF-8.`;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The Node request behind a request served by @hono/node-server (absent under `app.request()` in tests). */
function nodeIncoming(c: Context<AppEnv>): IncomingMessage | undefined {
  const env = c.env as { incoming?: unknown } | undefined;
  return env?.incoming instanceof Readable ? (env.incoming as IncomingMessage) : undefined;
}

/** The whole body, or null as soon as it passes `maxBytes` (the rest is discarded, not buffered). */
function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (result: Uint8Array | null, error?: unknown) => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error) reject(error);
      else resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        incoming.resume(); // drain the rest so the connection can answer 413
        done(null);
      } else chunks.push(chunk);
    };
    const onEnd = () => done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onError = (error: unknown) => done(null, error);
    const onClose = () => (incoming.readableEnded ? onEnd() : done(null, new Error('Client connection closed before the body was read.')));
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    if (incoming.readableEnded) onEnd();
  });
}

async function readWebStream(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * For requests with a body, each refusal thrown for `app.onError`: 415 unless the content type is JSON
 * in UTF-8, 413 past `maxBytes` (counted on the stream: chunked bodies and a wrong Content-Length are
 * caught too), 400 `parse_error` for malformed JSON or bytes that are not UTF-8, 400 past the structural
 * limits of json-limits.ts. The body is parsed once, for every reader. `parse: false` checks a copy and
 * leaves the body unread, for a handler that reads the raw request itself (GraphQL).
 */
export function jsonBody(maxBytes: number, options: { parse: boolean } = { parse: true }) {
  const tooLarge = () => new DomainError('payload_too_large', `Request body is larger than ${maxBytes} bytes.`);
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const type = c.req.header('content-type') ?? '';
    const typeProblem = contentTypeProblem(type);
    if (typeProblem !== null) throw new DomainError('unsupported_media_type', typeProblem);

    const declared = c.req.header('content-length');
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) throw tooLarge();
    let bytes: Uint8Array | null | undefined;
    const incoming = nodeIncoming(c);
    if (incoming && options.parse) {
      // Served by @hono/node-server: read the Node stream itself, so no WHATWG Request and stream are built per request.
      bytes = await readIncoming(incoming, maxBytes);
      if (bytes === null) throw tooLarge();
    } else if (c.req.raw.body) {
      bytes = await readWebStream(c.req.raw.body, maxBytes);
      if (bytes === null) throw tooLarge();
      if (!options.parse) c.req.raw = new Request(c.req.raw, { body: bytes });
    }

    let text: string;
    let value: unknown;
    try {
      text = !options.parse ? await c.req.raw.clone().text() : bytes ? utf8.decode(bytes) : await c.req.text();
      value = JSON.parse(text);
    } catch {
      throw new DomainError('parse_error', 'JSON parse error: the request body is not valid JSON.');
    }
    const limitProblem = jsonLimitProblem(text);
    if (limitProblem) throw limitProblem;
    if (options.parse) {
      // Parsed once: the routes' c.req.json(), their validators and Idempotency-Key's c.req.text() read these.
      // (Hono keeps promises in its body cache, although its type names the values.)
      const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
      const parsed = Promise.resolve(value);
      cache['text'] = Promise.resolve(text);
      cache['json'] = parsed;
      // Hono's c.req.json() (4.13) ignores the 'json' entry and parses the cached text again on every call.
      // This request's json() answers the value parsed above, one object for every reader: no reader mutates it.
      Object.defineProperty(c.req, 'json', { value: () => parsed, configurable: true });
    }
    await next();
  });
}
