import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { type MessagePort, Worker } from 'node:worker_threads';
import pino, { type Logger } from 'pino';
import { openLedger, type LedgerLocation } from '../ledger.js';
import { threadModule } from '../thread-module.js';
import { ledgerWebhookEndpoints } from './endpoints.js';
import type { LaneProgress } from './lane.js';
import type { NatsRelayConfig } from './nats-sink.js';
import type { RelayObserver } from './relay-metrics.js';
import { Relays, type WebhookSettings } from './relays.js';

/** What the service hands its relay thread: where the ledger is, and the relays' settings (docs/operations.md). */
export interface RelayThreadData {
  readonly location: LedgerLocation;
  readonly nats: NatsRelayConfig | null;
  readonly webhooks: WebhookSettings & { readonly allowPrivateNetworks: boolean; readonly attemptRetentionDays: number };
  readonly leaseMs: number;
  readonly logLevel: string;
}

type FromThread =
  | { readonly kind: 'figures'; readonly delivered: readonly [string, string, number][]; readonly progress: readonly [string, LaneProgress][]; readonly forgotten: readonly string[] }
  | { readonly kind: 'stopped' };

/** How often the thread tells the service's metrics what it did. */
const FIGURES_EVERY_MS = 1_000;

/**
 * How much lower than the requests' the relay thread's CPU priority is (a nice value). Relaying may wait (its
 * events are in the log, their lag is measured), a request may not: on cores the service keeps busy, the
 * scheduler runs the requests first and leaves the relays about a tenth of a contended core.
 */
const RELAY_NICE = 10;

/**
 * The relay thread's young generation: every event it relays leaves garbage (the decoded event, its payload, the
 * request or publish), and a larger nursery is collected less often (draining a log: about 3-16% more events a
 * second to NATS than V8's default).
 */
const RELAY_YOUNG_GENERATION_MB = 64;

/** Lowers this thread's CPU priority by RELAY_NICE: on Linux, setpriority(2) with a thread's id applies to that thread alone. */
function lowerThreadPriority(logger: Logger): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, Math.min(19, getPriority(tid) + RELAY_NICE));
  } catch (error) {
    logger.debug({ err: error }, 'relays: the thread keeps the service\'s CPU priority');
  }
}

/**
 * The relay thread (src/relay-thread.ts runs this): the relays on a ledger of their own, so that reading the
 * log, signing, posting and publishing take no time from the requests on the service's event loop, at a lower
 * CPU priority than the requests. Its figures reach the service's metrics once a second.
 */
export async function serveRelays(port: MessagePort, data: RelayThreadData): Promise<void> {
  const logger = pino({ level: data.logLevel }).child({ component: 'relays' });
  lowerThreadPriority(logger);
  const ledger = await openLedger(data.location, { webhookAttemptRetentionDays: data.webhooks.attemptRetentionDays });
  const delivered = new Map<string, number>();
  const progress = new Map<string, LaneProgress>();
  const forgotten: string[] = [];
  const observer: RelayObserver = {
    delivered: (relay, outcome, count = 1) => delivered.set(`${relay}\u0000${outcome}`, (delivered.get(`${relay}\u0000${outcome}`) ?? 0) + count),
    progress: (relay, p) => progress.set(relay, p),
    forget: (relay) => {
      progress.delete(relay);
      forgotten.push(relay);
    },
  };
  const tell = () => {
    const figures: FromThread = {
      kind: 'figures',
      delivered: [...delivered].map(([key, n]) => [...(key.split('\u0000') as [string, string]), n] as [string, string, number]),
      progress: [...progress],
      forgotten: forgotten.splice(0),
    };
    delivered.clear();
    port.postMessage(figures);
  };
  const timer = setInterval(tell, FIGURES_EVERY_MS);
  const { allowPrivateNetworks, attemptRetentionDays: _retention, ...settings } = data.webhooks;
  const relays = new Relays({
    log: ledger.log,
    relays: ledger.relays,
    logger,
    nats: data.nats,
    webhooks: { endpoints: ledgerWebhookEndpoints(ledger, { allowPrivateNetworks }, { actor: 'system:webhooks', requestId: null }), settings },
    metrics: observer,
    laneOptions: { leaseMs: data.leaseMs },
  });
  relays.start();
  port.on('message', (message: { kind: 'stop' }) => {
    if (message.kind !== 'stop') return;
    void (async () => {
      await relays.stop();
      clearInterval(timer);
      tell();
      await ledger.close();
      port.postMessage({ kind: 'stopped' } satisfies FromThread);
    })();
  });
}

/**
 * The service's side of the relay thread: started with the service, stopped with it (the relays give their
 * leases back); a thread that dies is started again a second later (its leases run out meanwhile, or it
 * takes its own back).
 */
export class RelayThread {
  private worker: Worker | null = null;
  private stopping = false;
  private restart: NodeJS.Timeout | null = null;
  /** The thread's module, once runnable (from the sources it is bundled first). */
  private readonly module: Promise<URL>;

  private constructor(
    entry: URL,
    private readonly data: RelayThreadData,
    private readonly observer: RelayObserver | null,
    private readonly logger: Logger,
  ) {
    this.module = threadModule(entry);
  }

  /** Starts the thread as soon as its module is runnable; the service does not wait for it (a stop meanwhile starts none). */
  static start(entry: URL, data: RelayThreadData, observer: RelayObserver | null, logger: Logger): RelayThread {
    const thread = new RelayThread(entry, data, observer, logger);
    thread.launch();
    return thread;
  }

  private launch(): void {
    this.module.then(
      (module) => this.run(module),
      (error: unknown) => this.logger.error({ err: error }, 'the relay thread could not be started'),
    );
  }

  private run(module: URL): void {
    if (this.stopping) return;
    const worker = new Worker(module, { workerData: this.data, resourceLimits: { maxYoungGenerationSizeMb: RELAY_YOUNG_GENERATION_MB } });
    this.worker = worker;
    worker.on('message', (message: FromThread) => {
      if (message.kind !== 'figures' || !this.observer) return;
      for (const [relay, outcome, n] of message.delivered) this.observer.delivered(relay, outcome, n);
      for (const [relay, p] of message.progress) this.observer.progress(relay, p);
      for (const relay of message.forgotten) this.observer.forget(relay);
    });
    worker.on('error', (error) => this.logger.error({ err: error }, 'the relay thread failed'));
    worker.on('exit', (code) => {
      this.worker = null;
      if (this.stopping) return;
      this.logger.error({ code }, 'the relay thread stopped: starting it again in a second');
      this.restart = setTimeout(() => this.launch(), 1_000);
    });
  }

  /** Stops the relays (their leases given back), then the thread; a thread that does not stop within `graceMs` is terminated. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    if (this.restart) clearTimeout(this.restart);
    await this.module.catch(() => undefined);
    const worker = this.worker;
    if (!worker) return;
    const stopped = new Promise<void>((resolve) => {
      worker.on('message', (message: FromThread) => message.kind === 'stopped' && resolve());
      worker.once('exit', () => resolve());
    });
    worker.postMessage({ kind: 'stop' });
    const timer = setTimeout(() => void worker.terminate(), graceMs);
    await stopped;
    clearTimeout(timer);
    await worker.terminate();
  }
}
