// A round-robin TCP balancer in front of several instances on one database: each new connection goes to
// the next instance in turn, so one `migrate --url` (a keep-alive connection per worker) spreads over them.
// A connection whose instance is down is closed: the client sees a reset and retries, as it would behind
// any balancer.
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

export async function startBalancer(ports: readonly number[]): Promise<{ readonly base: string; close(): Promise<void> }> {
  let next = 0;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(ports[next++ % ports.length]!, '127.0.0.1');
    open.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the balancer has no port');
  return {
    base: `http://127.0.0.1:${address.port}`,
    close: async () => {
      for (const socket of open) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
