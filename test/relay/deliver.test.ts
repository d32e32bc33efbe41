import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliver } from '../../src/relay/webhooks/deliver.js';
import { lookupFor, urlRefusal, PUBLIC_ONLY } from '../../src/relay/webhooks/destination.js';

/** The delivery's own checks, at every attempt: a URL whose host is (or resolves to) a private address is never posted to. */
describe('a delivery attempt', () => {
  let port = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => {
      if (req.url === '/silent') return; // never answers
      if (req.url === '/busy') return res.writeHead(503, { 'retry-after': '7', 'content-type': 'text/plain' }).end(`busy ${'x'.repeat(500)}`);
      res.writeHead(req.url === '/moved' ? 302 : 204, req.url === '/moved' ? { location: '/hooks' } : {}).end();
    });
  });
  beforeAll(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));

  const deliverer = (allowPrivateNetworks: boolean, timeoutMs = 2_000) =>
    createDeliver({ timeoutMs, lookup: lookupFor({ allowPrivateNetworks }), refusal: (url) => urlRefusal(url, { allowPrivateNetworks })?.detail ?? null, maxSockets: 2 });

  it('is refused, without a request, to a loopback address or a host resolving to one, unless private networks are allowed', async () => {
    const { deliver, close } = deliverer(false);
    try {
      for (const url of [`http://127.0.0.1:${port}/hooks`, `https://127.0.0.1:${port}/hooks`, `https://localhost:${port}/hooks`]) {
        const result = await deliver(url, {}, '{}');
        expect(result, url).toMatchObject({ status: null, error: expect.stringMatching(/public|https|not/i) });
      }
      expect(requests).toBe(0);
    } finally {
      close();
    }
    const allowed = deliverer(true);
    try {
      expect(await allowed.deliver(`http://localhost:${port}/hooks`, {}, '{}')).toMatchObject({ status: 204, error: null });
      // A redirect is no delivery, and is not followed.
      expect(await allowed.deliver(`http://127.0.0.1:${port}/moved`, {}, '{}')).toMatchObject({ status: 302 });
      expect(requests).toBe(2);
    } finally {
      allowed.close();
    }
    expect(PUBLIC_ONLY.allowPrivateNetworks).toBe(false);
  });

  it('is given up when no whole answer came within the timeout, and the next one goes through', async () => {
    const { deliver, close } = deliverer(true, 300);
    try {
      const late = await deliver(`http://127.0.0.1:${port}/silent`, {}, '{}');
      expect(late).toMatchObject({ status: null, error: 'no answer within 300 ms', retryAfterMs: null });
      expect(late.durationMs).toBeGreaterThanOrEqual(300);
      expect(late.durationMs).toBeLessThan(1_500);
      expect(await deliver(`http://127.0.0.1:${port}/hooks`, {}, '{}')).toMatchObject({ status: 204, error: null });
    } finally {
      close();
    }
  });

  it('keeps a failed answer\'s status, Retry-After and the first 200 bytes of its body', async () => {
    const { deliver, close } = deliverer(true);
    try {
      const result = await deliver(`http://127.0.0.1:${port}/busy`, {}, '{}');
      expect(result).toMatchObject({ status: 503, retryAfterMs: 7_000 });
      expect(result.error).toBe(`busy ${'x'.repeat(195)}`);
    } finally {
      close();
    }
  });

  it('fails, never throws, on a receiver that refuses the connection', async () => {
    const { deliver, close } = deliverer(true);
    try {
      expect(await deliver('http://127.0.0.1:1/hooks', {}, '{}')).toMatchObject({ status: null, error: expect.stringMatching(/ECONNREFUSED|connect/) });
    } finally {
      close();
    }
  });
});
