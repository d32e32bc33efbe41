// The far ends of the relays for bench/relays.ts, in a process of their own so that their work never stalls the
// load generator's event loop (a real receiver runs elsewhere): a webhook receiver that answers 204 at once, and
// a NATS subscriber. Each notes when a staged account's event first arrived (on the clock of the bench's process:
// `performance.timeOrigin + performance.now()` is shared across processes). Driven by IPC messages:
// {nats, subject} subscribes; 'counts' answers how many arrived, 'arrivals' when each staged account's did.
import { createServer } from 'node:http';
import { connect } from '@nats-io/transport-node';

const STAGED = 'data_import.import_process.staged-v1';
const now = () => performance.timeOrigin + performance.now();
/** The account of a staged account's event, without parsing the whole body (the bench's cost, not the relay's). */
const accountOf = (body) => (body.includes(STAGED) ? /"external_account_number":"([^"]+)"/.exec(body)?.[1] : undefined);

let deliveries = 0;
const ids = new Set();
const atWebhook = new Map();
const atNats = new Map();

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    deliveries++;
    ids.add(req.headers['webhook-id']);
    res.writeHead(204).end();
    const ext = accountOf(body);
    if (ext !== undefined && !atWebhook.has(ext)) atWebhook.set(ext, now());
  });
});

let nc = null;
process.on('message', async (message) => {
  if (message === 'counts') {
    process.send({ deliveries, ids: ids.size, webhook: atWebhook.size, nats: atNats.size });
  } else if (message === 'arrivals') {
    process.send({ webhook: [...atWebhook], nats: [...atNats] });
  } else if (message.nats) {
    nc ??= await connect({ servers: message.nats });
    nc.subscribe(message.subject, {
      callback: (_error, msg) => {
        const ext = accountOf(msg.string());
        if (ext !== undefined && !atNats.has(ext)) atNats.set(ext, now());
      },
    });
    await nc.flush();
    process.send({ subscribed: message.subject });
  }
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
