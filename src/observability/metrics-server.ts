import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { LedgerMetrics } from './metrics.js';

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * `GET /metrics` on a port and address of its own, never the API's: the figures name suppliers and the
 * service's insides, which a load balancer in front of the API must not show the world.
 */
export async function startMetricsServer(metrics: LedgerMetrics, host: string, port: number, onError: (error: unknown) => void): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8' }).end(path === '/metrics' ? 'GET only\n' : 'not found: GET /metrics\n');
      return;
    }
    metrics.text().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        onError(error);
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics could not be collected\n');
      },
    );
  });
  server.listen(port, host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
