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
    req.on('end', () => res.writeHead(req.url === '/moved' ? 302 : 204, req.url === '/moved' ? { location: '/hooks' } : {}).end());
  });
  beforeAll(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const deliverer = (allowPrivateNetworks: boolean) =>
    createDeliver({ timeoutMs: 2_000, lookup: lookupFor({ allowPrivateNetworks }), refusal: (url) => urlRefusal(url, { allowPrivateNetworks })?.detail ?? null, maxSockets: 2 });

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
});
