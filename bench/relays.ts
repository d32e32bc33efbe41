// npm run bench -- --only=relays: events out. (1) stage-account with the relays on (NATS and one webhook endpoint to a
// local receiver that answers at once) and off, alternated on fresh databases, with each event's lag from its
// request to its arrival at the receiver and at a NATS subscriber; (2) the webhook relay's deliveries a second and
// (3) the NATS relay's events a second over a generated log, each relay alone. The targets: at least 2,000
// deliveries/s, lag under 1 s while stage-account runs at full speed, the NATS relay at least 10,000 events/s,
// stage-account with both relays on within 10% of its rate with them off.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import autocannon from 'autocannon';
import { median, root, run, stop } from './lib.js';
import { databaseEnv, serviceBin, startService, tokenFor } from './service.js';

const NATS_URL = process.env['LEDGER_BENCH_NATS_URL'] ?? 'nats://127.0.0.1:4222';
const tsx = join(root, 'node_modules/.bin/tsx');

export interface RelayFigures {
  readonly rounds: readonly { readonly relays: boolean; readonly stage: number; readonly p99Ms: number }[];
  readonly stageOn: number;
  readonly stageOff: number;
  /** Median rate with the relays on over the median with them off. */
  readonly ratio: number;
  readonly webhookLagMs: Lag;
  readonly natsLagMs: Lag;
  readonly webhookDeliveriesPerSecond: number;
  readonly natsEventsPerSecond: number;
  readonly logEvents: number;
}

interface Lag {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly events: number;
}

/** A receiver that answers 204 at once, and notes when each staged account's first event arrived. */
async function startReceiver(onAccount: (ext: string, at: number) => void): Promise<{ url: string; deliveries: () => number; ids: () => number; close: () => Promise<void> }> {
  let deliveries = 0;
  const ids = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries++;
      ids.add(String(req.headers['webhook-id']));
      res.writeHead(204).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { external_account_number?: string } };
      if (body.type === 'data_import.import_process.staged-v1' && body.data.external_account_number) onAccount(body.data.external_account_number, performance.now());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    deliveries: () => deliveries,
    ids: () => ids.size,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const lagOf = (sent: ReadonlyMap<string, number>, arrived: ReadonlyMap<string, number>): Lag => {
  const lags = [...arrived].flatMap(([ext, at]) => (sent.has(ext) ? [at - sent.get(ext)!] : [])).sort((a, b) => a - b);
  const at = (q: number) => Math.round(lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? 0);
  return { p50: at(0.5), p99: at(0.99), max: Math.round(lags.at(-1) ?? 0), events: lags.length };
};

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the relays did not catch up');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The operator's setup of a fresh database: the supplier, the team and (relays on) the webhook endpoint. */
async function setUp(database: string, receiverUrl: string | null): Promise<void> {
  const env = { ...databaseEnv(database), NODE_ENV: 'production', LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
  await run(process.execPath, [serviceBin, 'supplier', 'create', 'BENCH'], env);
  await run(process.execPath, [serviceBin, 'team', 'create', 'Migrations'], env);
  if (receiverUrl) await run(process.execPath, [serviceBin, 'webhook', 'add', receiverUrl, '--supplier', 'BENCH'], env);
}

const relayEnv = (stream: string) => ({
  LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  LEDGER_NATS_URL: NATS_URL,
  LEDGER_NATS_STREAM: stream,
  LEDGER_NATS_SUBJECT_PREFIX: stream.toLowerCase(),
});

async function deleteStream(nc: NatsConnection, stream: string): Promise<void> {
  await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
}

/** One round of stage-account at full speed for `seconds`, the relays on or off; with them on, each staged account's lag. */
async function stageRound(
  work: string,
  round: number,
  relays: boolean,
  seconds: number,
  accountBody: (ext: string) => string,
  nc: NatsConnection,
): Promise<{ rate: number; p99Ms: number; webhook: Lag | null; nats: Lag | null }> {
  const database = join(work, `relays-${round}-${relays ? 'on' : 'off'}.db`);
  const stream = `BENCH_RELAYS_${round}`;
  const sent = new Map<string, number>();
  const atWebhook = new Map<string, number>();
  const atNats = new Map<string, number>();
  const receiver = relays ? await startReceiver((ext, at) => atWebhook.has(ext) || atWebhook.set(ext, at)) : null;
  const subscription = relays
    ? nc.subscribe(`${stream.toLowerCase()}.BENCH.data_import.import_process.staged-v1`, {
        callback: (_error, msg) => {
          const ext = (msg.json() as { data: { external_account_number: string } }).data.external_account_number;
          if (!atNats.has(ext)) atNats.set(ext, performance.now());
        },
      })
    : null;
  await setUp(database, receiver?.url ?? null);
  const service = await startService(database, { env: relays ? relayEnv(stream) : {} });
  try {
    const token = await tokenFor(service.base, database);
    let i = 0;
    const result = await autocannon({
      url: `${service.base}/v1/data-import/account-import-process/create-or-update/`,
      method: 'POST',
      connections: 10,
      duration: seconds,
      headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
      requests: [
        {
          setupRequest: (req) => {
            const ext = `R${round}-${i++}`;
            sent.set(ext, performance.now());
            return { ...req, body: accountBody(ext) };
          },
        },
      ],
    });
    const ok = result.requests.total - result.non2xx - result.errors;
    if (relays) await until(() => atWebhook.size >= ok && atNats.size >= ok, 60_000);
    return {
      rate: Math.round(ok / (result.duration || seconds)),
      p99Ms: result.latency.p99,
      webhook: relays ? lagOf(sent, atWebhook) : null,
      nats: relays ? lagOf(sent, atNats) : null,
    };
  } finally {
    subscription?.unsubscribe();
    await stop(service.child);
    await receiver?.close();
    if (relays) await deleteStream(nc, stream);
  }
}

/** The webhook relay, then the NATS relay, alone over a generated log: how fast each drains it. */
async function drainRates(work: string, events: number, nc: NatsConnection, progress: (line: string) => void): Promise<{ webhook: number; nats: number; catalogue: number }> {
  const database = join(work, 'relays-log.db');
  await run(tsx, [join(root, 'bench/generate-log.ts'), database, '--events', String(events)], {});
  // Every generated event is an external event but the supplier's and the team's creation.
  const catalogue = events - 2;
  let first = 0;
  const receiver = await startReceiver(() => undefined);
  const service = await startService(database, { env: { LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  let webhook = 0;
  try {
    const env = { ...databaseEnv(database), NODE_ENV: 'production', LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    const added = JSON.parse(await run(process.execPath, [serviceBin, 'webhook', 'add', receiver.url, '--supplier', 'BENCH', '--json'], env)) as { id: string };
    await run(process.execPath, [serviceBin, 'webhook', 'replay', added.id, '--from-position', '1'], env);
    await until(() => receiver.ids() > 0, 30_000);
    first = performance.now();
    await until(() => receiver.ids() >= catalogue, 600_000);
    webhook = Math.round(receiver.ids() / ((performance.now() - first) / 1000));
    progress(`  webhook relay: ${receiver.ids().toLocaleString()} events delivered (${receiver.deliveries().toLocaleString()} deliveries) at ${webhook.toLocaleString()}/s`);
  } finally {
    await stop(service.child);
    await receiver.close();
  }
  const stream = 'BENCH_RELAYS_DRAIN';
  await deleteStream(nc, stream);
  const jsm = await jetstreamManager(nc);
  const nats = await startService(database, { env: relayEnv(stream) });
  let natsRate = 0;
  try {
    const count = async () => (await jsm.streams.info(stream).catch(() => null))?.state.messages ?? 0;
    await until(async () => (await count()) > 0, 30_000);
    const start = performance.now();
    const from = await count();
    await until(async () => (await count()) >= catalogue, 600_000);
    natsRate = Math.round((catalogue - from) / ((performance.now() - start) / 1000));
    progress(`  NATS relay: ${catalogue.toLocaleString()} events published at ${natsRate.toLocaleString()}/s`);
  } finally {
    await stop(nats.child);
    await deleteStream(nc, stream);
  }
  return { webhook, nats: natsRate, catalogue };
}

export async function measureRelays(
  work: string,
  options: { readonly rounds: number; readonly seconds: number; readonly logEvents: number },
  accountBody: (ext: string) => string,
  progress: (line: string) => void,
): Promise<RelayFigures> {
  const nc = await connect({ servers: NATS_URL });
  try {
    progress(`events out: stage-account with the relays on and off (${options.rounds} alternated rounds of ${options.seconds} s, fresh databases):`);
    const rounds: { relays: boolean; stage: number; p99Ms: number }[] = [];
    const lags = { webhook: [] as Lag[], nats: [] as Lag[] };
    for (let round = 0; round < options.rounds; round++) {
      for (const relays of round % 2 === 0 ? [false, true] : [true, false]) {
        const r = await stageRound(work, round, relays, options.seconds, accountBody, nc);
        rounds.push({ relays, stage: r.rate, p99Ms: r.p99Ms });
        if (r.webhook) lags.webhook.push(r.webhook);
        if (r.nats) lags.nats.push(r.nats);
        progress(
          `  round ${round + 1}, relays ${relays ? 'on ' : 'off'}: ${r.rate} req/s, p99 ${r.p99Ms} ms` +
            (r.webhook && r.nats ? `; lag to the webhook p50 ${r.webhook.p50} ms, p99 ${r.webhook.p99} ms, max ${r.webhook.max} ms; to NATS p50 ${r.nats.p50} ms, p99 ${r.nats.p99} ms, max ${r.nats.max} ms` : ''),
        );
      }
    }
    const worst = (list: Lag[]): Lag => list.reduce((a, b) => (b.p99 > a.p99 ? b : a));
    const stageOn = median(rounds.filter((r) => r.relays).map((r) => r.stage));
    const stageOff = median(rounds.filter((r) => !r.relays).map((r) => r.stage));
    progress(`events out: each relay alone over a generated log of ${options.logEvents.toLocaleString()} events:`);
    const drained = await drainRates(work, options.logEvents, nc, progress);
    return {
      rounds,
      stageOn,
      stageOff,
      ratio: Math.round((stageOn / stageOff) * 1000) / 1000,
      webhookLagMs: worst(lags.webhook),
      natsLagMs: worst(lags.nats),
      webhookDeliveriesPerSecond: drained.webhook,
      natsEventsPerSecond: drained.nats,
      logEvents: drained.catalogue,
    };
  } finally {
    await nc.close();
  }
}

export function printRelays(f: RelayFigures): void {
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  process.stdout.write(
    `events out: stage-account with both relays on ${f.stageOn} req/s, off ${f.stageOff} req/s: ${(f.ratio * 100).toFixed(1)}% (target at least 90%: ${met(f.ratio >= 0.9)})\n` +
      `  lag from the stage request to the event's arrival (worst round): webhook p50 ${f.webhookLagMs.p50} ms, p99 ${f.webhookLagMs.p99} ms, max ${f.webhookLagMs.max} ms; ` +
      `NATS p50 ${f.natsLagMs.p50} ms, p99 ${f.natsLagMs.p99} ms, max ${f.natsLagMs.max} ms (target under 1 s: ${met(f.webhookLagMs.p99 < 1_000 && f.natsLagMs.p99 < 1_000)})\n` +
      `  webhook relay alone: ${f.webhookDeliveriesPerSecond.toLocaleString()} deliveries/s (target 2,000: ${met(f.webhookDeliveriesPerSecond >= 2_000)}); ` +
      `NATS relay alone: ${f.natsEventsPerSecond.toLocaleString()} events/s (target 10,000: ${met(f.natsEventsPerSecond >= 10_000)}), over ${f.logEvents.toLocaleString()} events\n\n`,
  );
}
