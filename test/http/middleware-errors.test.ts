import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { ConcurrencyLimiter, processConcurrencyLimit } from '../../src/http/concurrency-limiter.js';
import type { AppEnv } from '../../src/http/env.js';
import { errorResponse, toDomainError } from '../../src/http/errors.js';
import { jsonBody } from '../../src/http/json-body.js';
import { requestRateLimit } from '../../src/http/request-rate-limiter.js';
import { InProcessLimits } from '../../src/store/shared-limits.js';

/**
 * Middleware throws; `app.onError` answers (house style, habit 5). This pins
 * the Hono behaviour that relies on: an error thrown by middleware of a
 * sub-app mounted with `app.route()`, or of `app.use(path, ...)`, reaches the
 * app's onError at the layer that threw, and middleware further out sees the
 * answer as `c.res` after `await next()` (the request log reads its status,
 * the concurrency limit releases its slot). The app below has createApp's
 * shape without a store; test/http/auth.test.ts, request-handling.test.ts and
 * test/hardening/ drive the real one.
 */

const PROCESS = '/v1/data-import/process/';
const OTHER = '/v1/data-import/other/';

interface Harness {
  readonly app: Hono<AppEnv>;
  /** The status every request ended with, as the outermost middleware saw it. */
  readonly logged: number[];
  /** Settles the process handler that is waiting. */
  release(): void;
}

function harness(config: { concurrency: number | null; rate: number | null }): Harness {
  const logged: number[] = [];
  let release = () => {};
  const app = new Hono<AppEnv>({ strict: true });
  app.use('*', async (c, next) => {
    await next();
    logged.push(c.res.status);
  });
  const read = { configValue: async (key: string) => (key === 'process-concurrency-limit' ? config.concurrency : config.rate) };
  const limits = new InProcessLimits(() => new Date('2026-01-01T00:00:00Z'));
  app.use(PROCESS, processConcurrencyLimit(new ConcurrencyLimiter(read, limits)));

  const api = new Hono<AppEnv>({ strict: true });
  api.use('*', async (c, next) => {
    c.set('principal', { keyId: 'key_1', suppliers: ['S'] });
    await next();
  });
  api.use('*', requestRateLimit(read, limits), jsonBody(64));
  api.post('/process/', async (c) => {
    const body = (await c.req.json()) as { wait?: boolean; fail?: boolean };
    if (body.wait) await new Promise<void>((resolve) => (release = resolve));
    if (body.fail) throw new DomainError('account_not_found', 'No such account.');
    return c.json({ ok: true }, 201);
  });
  api.post('/other/', (c) => c.json({ ok: true }, 201));
  app.route('/v1/data-import', api);

  app.onError((error, c) => errorResponse(c, toDomainError(error)));
  return { app, logged, release: () => release() };
}

const post = (h: Harness, path: string, body: string, contentType = 'application/json') =>
  Promise.resolve(h.app.request(path, { method: 'POST', headers: { 'content-type': contentType }, body }));

const errorJson = (code: string, detail: string) => JSON.stringify({ detail, code, errors: [{ detail, code, attr: 'non_field_errors' }] });

describe('errors thrown by middleware', () => {
  it('inside the mounted sub-app (every(...) included) become the onError answer, seen by the middleware outside', async () => {
    const h = harness({ concurrency: null, rate: null });
    const unsupported = await post(h, OTHER, '{}', 'text/plain');
    expect(unsupported.status).toBe(415);
    expect(await unsupported.text()).toBe(errorJson('unsupported_media_type', 'Unsupported media type "text/plain": send application/json.'));
    const tooLarge = await post(h, OTHER, JSON.stringify({ padding: 'x'.repeat(100) }));
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.text()).toBe(errorJson('payload_too_large', 'Request body is larger than 64 bytes.'));
    expect((await post(h, OTHER, '{"a": 1e400}')).status).toBe(400);
    expect(h.logged).toEqual([415, 413, 400]);
  });

  it('of the request-rate limit answer 429 with Retry-After', async () => {
    const h = harness({ concurrency: null, rate: 1 });
    expect((await post(h, OTHER, '{}')).status).toBe(201);
    const throttled = await post(h, OTHER, '{}');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(await throttled.text()).toBe(errorJson('throttled', 'Too many requests for this API key (at most 1 a second); retry after 1 s.'));
    expect(h.logged).toEqual([201, 429]);
  });

  it('of app.use(path, ...) answer 429 with Retry-After; the slot is released whatever the handler did', async () => {
    const h = harness({ concurrency: 1, rate: null });
    const waiting = post(h, PROCESS, '{"wait": true}');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const throttled = await post(h, PROCESS, '{}');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(await throttled.text()).toBe(errorJson('throttled', 'Too many accounts are being processed at once; retry once other accounts finish processing.'));
    h.release();
    expect((await waiting).status).toBe(201);
    // A handler that throws is answered at its own layer: the limit's `finally` still runs.
    expect((await post(h, PROCESS, '{"fail": true}')).status).toBe(404);
    expect((await post(h, PROCESS, '{}')).status).toBe(201);
    expect(h.logged).toEqual([429, 201, 404, 201]);
  });
});
