// The payment vendor the cut-over's instructions are checked with: every reference asked exists (the
// contract of src/adapters/payment-vendors.ts, as test/support/fake-vendor.ts answers a scripted one), so
// what the bench measures is the service's own work on them.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startVendor(): Promise<{ readonly url: string; readonly answered: () => number; close(): Promise<void> }> {
  const prefix = '/v1/instructions/';
  let answered = 0;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://vendor').pathname;
    if (!path.startsWith(prefix)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `unexpected path ${path}` }));
      return;
    }
    answered++;
    const reference = decodeURIComponent(path.slice(prefix.length));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ reference, type: 'CARD', status: 'active', customer: 'cus_bench' }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    answered: () => answered,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
