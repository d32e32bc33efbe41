import { randomUUID } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import type { Logger } from 'pino';
import { matchesEventTypes, sourceEventTypes, toExternalEvent, type RoutedEvent, type Scope } from '../external-events/catalogue.js';
import type { EventLog } from '../store/event-log.js';
import type { RelayStore } from '../store/relay-store.js';
import { RelayLane, type LaneOptions, type RelaySink } from './lane.js';
import { NatsSink, type NatsRelayConfig } from './nats-sink.js';
import { SharedTail } from './shared-tail.js';
import type { RelayObserver } from './relay-metrics.js';
import { createDeliver } from './webhooks/deliver.js';
import { WebhookSink } from './webhooks/webhook-sink.js';
import type { AttemptRow } from '../store/webhook-storage.js';
import type { WebhookEndpointRow } from '../../projections/webhook-endpoints.js';

/** A webhook endpoint as the relays read it (the `webhook_endpoints` projection's row). */
export type EndpointView = Pick<WebhookEndpointRow, 'id' | 'importSupplier' | 'url' | 'eventTypes' | 'status' | 'replaySeq' | 'replayFromPosition' | 'createdPosition'>;

/** What the webhook relays need of the ledger beside the log (the endpoints resource, src/application/webhook-endpoints.ts). */
export interface WebhookEndpointsPort {
  list(): Promise<readonly EndpointView[]>;
  signingSecrets(endpointId: string, nowMs: number): Promise<readonly string[]>;
  recordAttempts(attempts: readonly AttemptRow[]): Promise<void>;
  disable(endpointId: string, reason: 'gone' | 'failing', detail: string): Promise<void>;
  /** The suppliers a populate batch belongs to (a batch's events go to its suppliers' endpoints). */
  batchSuppliers(batchId: string): Promise<readonly string[]>;
  /** Resolves a receiver's host, refusing an address it must not reach (destination.ts). */
  readonly lookup: LookupFunction;
  /** Why a URL may not be posted to, judged before each attempt (an address literal is never looked up); null: it may. */
  refusal(url: string): string | null;
}

export interface WebhookSettings {
  readonly schedule: readonly number[];
  readonly disableAfterMs: number;
  readonly timeoutMs: number;
  readonly concurrency: number;
}

export interface RelaysOptions {
  readonly log: EventLog;
  readonly relays: RelayStore;
  readonly logger: Logger;
  readonly nats: NatsRelayConfig | null;
  readonly webhooks: { readonly endpoints: WebhookEndpointsPort; readonly settings: WebhookSettings } | null;
  readonly metrics?: RelayObserver | null;
  /** How often the endpoints are read again (new, changed, disabled, removed, replayed). */
  readonly watchEveryMs?: number;
  readonly laneOptions?: { readonly leaseMs?: number; readonly persistEveryMs?: number };
}

interface Running {
  readonly lane: RelayLane;
  readonly stop: () => Promise<void>;
  /** The endpoint as the lane was started for (a changed url or filter starts it again). */
  readonly shape: string;
}

/**
 * Events out (docs/events.md): one lane for NATS when configured, one per enabled webhook endpoint, each
 * on its lease (on PostgreSQL one instance at a time serves each; a dead instance's share is taken over
 * when its lease runs out). Endpoints are read again every `watchEveryMs`: a new or re-enabled one gets a
 * lane, a disabled or removed one loses it, a replay moves its lane back.
 */
export class Relays {
  private readonly holder = `instance-${randomUUID()}`;
  private readonly running = new Map<string, Running>();
  private endpoints = new Map<string, EndpointView>();
  private watcher: NodeJS.Timeout | null = null;
  private watching: Promise<void> = Promise.resolve();
  private readonly attempts: AttemptRow[] = [];
  private flushing: Promise<void> | null = null;
  /** The lanes read the log's tail once between them. */
  private readonly tail: SharedTail;

  constructor(private readonly options: RelaysOptions) {
    this.tail = new SharedTail(options.log, sourceEventTypes);
  }

  start(): void {
    const { nats, webhooks, watchEveryMs = 2_000 } = this.options;
    if (nats) {
      const sink = new NatsSink(nats, (outcome) => this.options.metrics?.delivered('nats', outcome));
      this.launch('nats', sink, () => true, async () => 0, 'nats');
    }
    if (webhooks) {
      const watch = () => {
        this.watching = this.watching.then(() => this.watchEndpoints()).catch((error: unknown) => this.options.logger.warn({ err: error }, 'relays: could not read the webhook endpoints'));
      };
      watch();
      this.watcher = setInterval(watch, watchEveryMs);
    }
  }

  async stop(): Promise<void> {
    if (this.watcher) clearInterval(this.watcher);
    await this.watching;
    await Promise.all([...this.running.values()].map((r) => r.stop()));
    this.running.clear();
    await this.flushAttempts();
  }

  private launch(name: string, sink: RelaySink, accepts: (e: RoutedEvent) => boolean | Promise<boolean>, initialPosition: () => Promise<number>, shape: string, replay?: LaneOptions['replay'], cleanup?: () => void): void {
    const { log, relays, logger, metrics, laneOptions } = this.options;
    const lane = new RelayLane({
      name,
      holder: this.holder,
      log,
      tail: this.tail,
      relays,
      sink,
      logger,
      accepts,
      initialPosition,
      ...(replay ? { replay } : {}),
      ...laneOptions,
      ...(metrics ? { onProgress: (p) => metrics.progress(name, p) } : {}),
    });
    const controller = new AbortController();
    const done = lane.run(controller.signal);
    this.running.set(name, {
      lane,
      shape,
      stop: async () => {
        controller.abort();
        await done;
        cleanup?.();
        metrics?.forget(name);
      },
    });
  }

  private async watchEndpoints(): Promise<void> {
    const { endpoints } = this.options.webhooks!;
    const listed = await endpoints.list();
    this.endpoints = new Map(listed.map((e) => [e.id, e]));
    const wanted = new Map(listed.filter((e) => e.status === 'enabled').map((e) => [`webhook:${e.id}`, e]));
    for (const [name, running] of this.running) {
      if (name === 'nats') continue;
      const endpoint = wanted.get(name);
      if (!endpoint || shapeOf(endpoint) !== running.shape) {
        this.running.delete(name);
        await running.stop();
      }
    }
    for (const [name, endpoint] of wanted) if (!this.running.has(name)) this.launchEndpoint(name, endpoint);
  }

  private launchEndpoint(name: string, endpoint: EndpointView): void {
    const { endpoints, settings } = this.options.webhooks!;
    const { log, relays, logger, metrics } = this.options;
    const { deliver, close } = createDeliver({ timeoutMs: settings.timeoutMs, lookup: endpoints.lookup, refusal: endpoints.refusal, maxSockets: settings.concurrency });
    let secrets: { readonly at: number; readonly value: Promise<readonly string[]> } | null = null;
    const sink = new WebhookSink({
      endpointId: endpoint.id,
      url: endpoint.url,
      deliver,
      // Read at most every second: a rotation signs with the new secret within a second.
      secrets: () => {
        const now = Date.now();
        if (!secrets || now - secrets.at > 1_000) secrets = { at: now, value: endpoints.signingSecrets(endpoint.id, now) };
        return secrets.value;
      },
      relays,
      readEvent: (position) => readRouted(log, position),
      recordAttempt: (attempt) => {
        metrics?.delivered(name, attempt.outcome);
        this.recordAttempt(attempt);
      },
      disable: (reason, detail) => endpoints.disable(endpoint.id, reason, detail),
      schedule: settings.schedule,
      disableAfterMs: settings.disableAfterMs,
      concurrency: settings.concurrency,
      logger: logger.child({ endpoint: endpoint.id }),
    });
    const batches = new Map<string, Promise<readonly string[]>>();
    const accepts = async (routed: RoutedEvent) => matchesEventTypes(endpoint.eventTypes, routed.event.type) && (await visibleTo(endpoint.importSupplier, routed.scope, batches, endpoints));
    // An endpoint is told of what happens after its creation, however late its relay first runs; a replay reaches further back.
    const initialPosition = async () => endpoint.createdPosition;
    const replay = async (replaySeq: number) => {
      const current = this.endpoints.get(endpoint.id);
      if (!current || current.replaySeq <= replaySeq || current.replayFromPosition === null) return null;
      await relays.unpark(endpoint.id, { from: current.replayFromPosition });
      return { replaySeq: current.replaySeq, fromPosition: current.replayFromPosition };
    };
    this.launch(name, sink, accepts, initialPosition, shapeOf(endpoint), replay, close);
  }

  /** Attempts are written in batches: one write for many deliveries. */
  private recordAttempt(attempt: AttemptRow): void {
    this.attempts.push(attempt);
    if (this.attempts.length >= 500) void this.flushAttempts();
    else if (!this.flushing) this.flushing = new Promise<void>((resolve) => setTimeout(resolve, 250)).then(() => this.flushAttempts());
  }

  private async flushAttempts(): Promise<void> {
    const rows = this.attempts.splice(0);
    this.flushing = null;
    if (rows.length === 0 || !this.options.webhooks) return;
    await this.options.webhooks.endpoints.recordAttempts(rows).catch((error: unknown) => this.options.logger.warn({ err: error, attempts: rows.length }, 'relays: could not record delivery attempts'));
  }
}

const shapeOf = (e: EndpointView) => JSON.stringify([e.url, e.eventTypes, e.importSupplier]);

/** An endpoint sees what its supplier's key sees in the feed: the supplier's events, the shared catalogue, its populate batches. */
async function visibleTo(supplier: string, scope: Scope, batches: Map<string, Promise<readonly string[]>>, endpoints: WebhookEndpointsPort): Promise<boolean> {
  if ('everyone' in scope) return true;
  if ('supplier' in scope) return scope.supplier === supplier;
  let suppliers = batches.get(scope.batchId);
  if (!suppliers) {
    suppliers = endpoints.batchSuppliers(scope.batchId);
    batches.set(scope.batchId, suppliers);
  }
  return (await suppliers).includes(supplier);
}

/** The external event at `position`, read again from the log (a parked message's). */
async function readRouted(log: EventLog, position: number): Promise<RoutedEvent | null> {
  const snapshot = await log.open({ after: position - 1, through: position, withBulkFields: false });
  try {
    for await (const batch of snapshot) for (const stored of batch) if (stored.globalPosition === position) return toExternalEvent(stored);
  } finally {
    await snapshot.close();
  }
  return null;
}
