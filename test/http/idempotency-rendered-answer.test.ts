import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answer } from '../../src/http/answer.js';
import type { AppEnv } from '../../src/http/env.js';
import { idempotency } from '../../src/http/idempotency.js';
import { createTestLedger, type TestLedger } from '../support/ledger.js';

/**
 * The Idempotency-Key middleware stores the answer's text as the route rendered it (the text `answer`
 * kept), not read back from the response; an answer made any other way, or replaced after `answer`, is
 * read back from the response. Either way a retry gets the bytes the first request got.
 */
describe('Idempotency-Key: the stored answer is the one sent', () => {
  let t: TestLedger;
  let app: Hono<AppEnv>;
  beforeEach(async () => {
    t = await createTestLedger();
    app = new Hono<AppEnv>();
    app.use('*', async (c, next) => {
      c.set('principal', { keyId: 'key-1' } as AppEnv['Variables']['principal']);
      await next();
    });
    app.use('*', idempotency(t.ledger.idempotency, t.ledger.store));
    // Key order, escapes and non-ASCII text as JSON.stringify writes them.
    app.post('/json', (c) => answer(c, { status: 201, body: { z: 1, a: 'é "quoted" \u2028', n: [3, 1, 2] } }));
    app.post('/text', (c) => c.body('not JSON, made without c.json', 201, { 'content-type': 'text/plain' }));
    // Renders an answer, then answers something else: the answer sent is the second.
    app.post('/replaced', (c) => {
      answer(c, { status: 201, body: { first: true } });
      return c.json({ second: true }, 202);
    });
    app.post('/overridden', async (c, next) => {
      await next();
      c.res = new Response('{"made":"after answer"}', { status: 201, headers: { 'content-type': 'application/json' } });
    });
    app.post('/overridden', (c) => answer(c, { status: 201, body: { made: 'by answer' } }));
  });
  afterEach(() => t.close());

  const send = (path: string, key: string) => app.request(path, { method: 'POST', headers: { 'idempotency-key': key, 'content-type': 'application/json' }, body: '{}' });

  for (const [path, status, body] of [
    ['/json', 201, '{"z":1,"a":"é \\"quoted\\" \u2028","n":[3,1,2]}'],
    ['/text', 201, 'not JSON, made without c.json'],
    ['/replaced', 202, '{"second":true}'],
    ['/overridden', 201, '{"made":"after answer"}'],
  ] as const) {
    it(`${path}: the retry replays the first answer byte for byte`, async () => {
      const first = await send(path, `k${path}`);
      expect(first.status).toBe(status);
      expect(await first.text()).toBe(body);
      const retry = await send(path, `k${path}`);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.status).toBe(status);
      expect(await retry.text()).toBe(body);
    });
  }
});
