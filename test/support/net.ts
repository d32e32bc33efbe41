import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

/**
 * A port free right now on 127.0.0.1: bound to 0, read, released. Used to
 * start a child server on a known port (PORT=0 would not tell us which port
 * it took) and as a port where nothing listens.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
