// npm run bench -- --only=relays: events out. (1) stage-account with the relays on (NATS and one webhook endpoint to a
// local receiver that answers at once) and off, alternated on fresh databases and each measured after a warm-up
// (a new process compiles its hot code for its first seconds, on the same cores), with each event's lag from its
// request to its arrival at the receiver and at a NATS subscriber; (2) the webhook relay's deliveries a second and
// (3) the NATS relay's events a second over a generated log, each relay alone. The targets: at least 2,000
// deliveries/s, lag under 1 s while stage-account runs at full speed, the NATS relay at least 10,000 events/s,
// stage-account with both relays on within 10% of its rate with them off.
import { fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import autocannon from 'autocannon';
import { median, processCpuMs, root, run, stop } from './lib.js';
import { databaseEnv, serviceBin, startService, tokenFor } from './service.js';

const NATS_URL = process.env['LEDGER_BENCH_NATS_URL'] ?? 'nats://127.0.0.1:4222';
const tsx = join(root, 'node_modules/.bin/tsx');

export interface RelayFigures {
  readonly rounds: readonly { readonly relays: boolean; readonly stage: number; readonly p99Ms: number; readonly cpuMsPerRequest: number }[];
  /** The service's CPU a stage request (its relays' included), medians with the relays on and off. */
  readonly cpuOn: number;
  readonly cpuOff: number;
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

interface Counts {
  readonly deliveries: number;
  /** Distinct webhook-ids. */
  readonly ids: number;
  /** Staged accounts whose event arrived. */
  readonly webhook: number;
  readonly nats: number;
}

interface Arrivals {
  readonly webhook: readonly [string, number][];
  readonly nats: readonly [string, number][];
}

/**
 * The webhook receiver and the NATS subscriber (bench/relay-receivers.mjs), in a process of their own at a lower
 * CPU priority: a real receiver runs on another machine, so here it takes what the service leaves of the cores.
 */
async function startReceivers(): Promise<{ url: string; subscribe: (subject: string) => Promise<void>; counts: () => Promise<Counts>; arrivals: () => Promise<Arrivals>; close: () => void }> {
  const child = fork(join(root, 'bench/relay-receivers.mjs'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  setPriority(child.pid!, 10);
  const next = <T>(test: (message: any) => boolean): Promise<T> =>
    new Promise((resolve) => {
      const listener = (message: unknown) => {
        if (!test(message)) return;
        child.off('message', listener);
        resolve(message as T);
      };
      child.on('message', listener);
    });
  const { port } = await next<{ port: number }>((m) => typeof m?.port === 'number');
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    subscribe: async (subject) => {
      const subscribed = next((m) => m?.subscribed === subject);
      child.send({ nats: NATS_URL, subject });
      await subscribed;
    },
    counts: () => {
      const counts = next<Counts>((m) => typeof m?.deliveries === 'number');
      child.send('counts');
      return counts;
    },
    arrivals: () => {
      const arrivals = next<Arrivals>((m) => Array.isArray(m?.webhook));
      child.send('arrivals');
      return arrivals;
    },
    close: () => child.kill(),
  };
}

/** A moment on a clock every process of the machine shares (the receivers' process notes arrivals on it). */
const now = () => performance.timeOrigin + performance.now();

const lagOf = (sent: ReadonlyMap<string, number>, arrived: readonly [string, number][]): Lag => {
  const lags = arrived.flatMap(([ext, at]) => (sent.has(ext) ? [at - sent.get(ext)!] : [])).sort((a, b) => a - b);
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

/** One round of stage-account at full speed for `seconds` after `warmUpSeconds` not counted, the relays on or off; with them on, each staged account's lag. */
async function stageRound(
  work: string,
  round: number,
  relays: boolean,
  seconds: number,
  warmUpSeconds: number,
  accountBody: (ext: string) => string,
  nc: NatsConnection,
): Promise<{ rate: number; p99Ms: number; cpuMsPerRequest: number; webhook: Lag | null; nats: Lag | null }> {
  const database = join(work, `relays-${round}-${relays ? 'on' : 'off'}.db`);
  const stream = `BENCH_RELAYS_${round}`;
  const sent = new Map<string, number>();
  const receivers = relays ? await startReceivers() : null;
  await receivers?.subscribe(`${stream.toLowerCase()}.BENCH.data_import.import_process.staged-v1`);
  await setUp(database, receivers?.url ?? null);
  const service = await startService(database, { env: relays ? relayEnv(stream) : {} });
  try {
    const token = await tokenFor(service.base, database);
    let i = 0;
    const stage = (duration: number) =>
      autocannon({
        url: `${service.base}/v1/data-import/account-import-process/create-or-update/`,
        method: 'POST',
        connections: 10,
        duration,
        headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
        requests: [
          {
            setupRequest: (req) => {
              const ext = `R${round}-${i++}`;
              sent.set(ext, now());
              return { ...req, body: accountBody(ext) };
            },
          },
        ],
      });
    const succeeded = (r: autocannon.Result) => r.requests.total - r.non2xx - r.errors;
    // A new process compiles its hot code (the relay thread's too) for its first seconds, on the same cores:
    // the rates compared are the service's once that is done.
    const warm = succeeded(await stage(warmUpSeconds));
    const cpuBefore = processCpuMs(service.child.pid!);
    const result = await stage(seconds);
    const ok = succeeded(result);
    if (receivers) {
      await until(async () => {
        const counts = await receivers.counts();
        return counts.webhook >= warm + ok && counts.nats >= warm + ok;
      }, 60_000);
    }
    const cpuMsPerRequest = Math.round(((processCpuMs(service.child.pid!) - cpuBefore) / ok) * 1000) / 1000;
    const report = await receivers?.arrivals();
    return {
      rate: Math.round(ok / (result.duration || seconds)),
      p99Ms: result.latency.p99,
      cpuMsPerRequest,
      webhook: report ? lagOf(sent, report.webhook) : null,
      nats: report ? lagOf(sent, report.nats) : null,
    };
  } finally {
    await stop(service.child);
    receivers?.close();
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
  const receiver = await startReceivers();
  const ids = async () => (await receiver.counts()).ids;
  const service = await startService(database, { env: { LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  let webhook = 0;
  try {
    const env = { ...databaseEnv(database), NODE_ENV: 'production', LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    const added = JSON.parse(await run(process.execPath, [serviceBin, 'webhook', 'add', receiver.url, '--supplier', 'BENCH', '--json'], env)) as { id: string };
    await run(process.execPath, [serviceBin, 'webhook', 'replay', added.id, '--from-position', '1'], env);
    await until(async () => (await ids()) > 0, 30_000);
    first = performance.now();
    await until(async () => (await ids()) >= catalogue, 600_000);
    const { ids: delivered, deliveries } = await receiver.counts();
    webhook = Math.round(delivered / ((performance.now() - first) / 1000));
    progress(`  webhook relay: ${delivered.toLocaleString()} events delivered (${deliveries.toLocaleString()} deliveries) at ${webhook.toLocaleString()}/s`);
  } finally {
    await stop(service.child);
    receiver.close();
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
  options: { readonly rounds: number; readonly seconds: number; readonly warmUpSeconds: number; readonly logEvents: number },
  accountBody: (ext: string) => string,
  progress: (line: string) => void,
): Promise<RelayFigures> {
  const nc = await connect({ servers: NATS_URL });
  try {
    progress(`events out: stage-account with the relays on and off (${options.rounds} alternated rounds of ${options.seconds} s after ${options.warmUpSeconds} s of warm-up, fresh databases):`);
    const rounds: { relays: boolean; stage: number; p99Ms: number; cpuMsPerRequest: number }[] = [];
    const lags = { webhook: [] as Lag[], nats: [] as Lag[] };
    for (let round = 0; round < options.rounds; round++) {
      for (const relays of round % 2 === 0 ? [false, true] : [true, false]) {
        const r = await stageRound(work, round, relays, options.seconds, options.warmUpSeconds, accountBody, nc);
        rounds.push({ relays, stage: r.rate, p99Ms: r.p99Ms, cpuMsPerRequest: r.cpuMsPerRequest });
        if (r.webhook) lags.webhook.push(r.webhook);
        if (r.nats) lags.nats.push(r.nats);
        progress(
          `  round ${round + 1}, relays ${relays ? 'on ' : 'off'}: ${r.rate} req/s, p99 ${r.p99Ms} ms, service CPU ${r.cpuMsPerRequest} ms a request` +
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
      cpuOn: median(rounds.filter((r) => r.relays).map((r) => r.cpuMsPerRequest)),
      cpuOff: median(rounds.filter((r) => !r.relays).map((r) => r.cpuMsPerRequest)),
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
      `  the service's CPU a stage request (its relays' share of the event included): ${f.cpuOn} ms on, ${f.cpuOff} ms off\n` +
      `  lag from the stage request to the event's arrival (worst round): webhook p50 ${f.webhookLagMs.p50} ms, p99 ${f.webhookLagMs.p99} ms, max ${f.webhookLagMs.max} ms; ` +
      `NATS p50 ${f.natsLagMs.p50} ms, p99 ${f.natsLagMs.p99} ms, max ${f.natsLagMs.max} ms (target under 1 s: ${met(f.webhookLagMs.p99 < 1_000 && f.natsLagMs.p99 < 1_000)})\n` +
      `  webhook relay alone: ${f.webhookDeliveriesPerSecond.toLocaleString()} deliveries/s (target 2,000: ${met(f.webhookDeliveriesPerSecond >= 2_000)}); ` +
      `NATS relay alone: ${f.natsEventsPerSecond.toLocaleString()} events/s (target 10,000: ${met(f.natsEventsPerSecond >= 10_000)}), over ${f.logEvents.toLocaleString()} events\n\n`,
  );
}
