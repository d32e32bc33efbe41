import { jetstream, jetstreamManager, JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { RoutedEvent } from '../external-events/catalogue.js';
import type { RelaySink } from './lane.js';

export interface NatsRelayConfig {
  /** e.g. nats://127.0.0.1:4222 */
  readonly url: string;
  /** The JetStream stream, created (capturing `<subjectPrefix>.>`) when absent. */
  readonly stream: string;
  readonly subjectPrefix: string;
  /** Publishes awaiting the server's ack at once. */
  readonly maxInFlight?: number;
}

/** What a message's subject says in place of a supplier: the shared catalogue's events, a populate batch's. */
const CATALOGUE = '_catalogue';
const POPULATE_BATCH = '_populate';

/** `<prefix>.<import supplier>.<event type>` (the type's own dots make it several tokens: `...data_import.>` subscribes to a supplier's import events). */
export function natsSubject(prefix: string, routed: RoutedEvent): string {
  const { scope } = routed;
  const owner = 'supplier' in scope ? scope.supplier : 'everyone' in scope ? CATALOGUE : POPULATE_BATCH;
  return `${prefix}.${owner}.${routed.event.type}`;
}

/** The body every relay sends: the external event's payload (its id travels beside it: Nats-Msg-Id, webhook-id). */
export const payloadOf = (routed: RoutedEvent): string => JSON.stringify({ type: routed.event.type, timestamp: routed.event.timestamp, data: routed.event.data });

interface Pending {
  readonly position: number;
  done: boolean;
}

/**
 * Publishes to a JetStream stream, many publishes awaiting their acks at once (sent in order on one
 * connection, so the stream keeps the log's order), each with `Nats-Msg-Id` = the event's id so the server
 * drops a repeat within its duplicate window. Settled through the first publish not acked yet.
 */
export class NatsSink implements RelaySink {
  private connection: { nc: NatsConnection; js: JetStreamClient } | null = null;
  private pending: Pending[] = [];
  private head = 0;
  private inFlight = 0;
  private wake: (() => void) | null = null;
  /** Publishes of an earlier generation (before a reset) settle nothing. */
  private generation = 0;
  failure: Error | null = null;
  private readonly maxInFlight: number;

  constructor(
    private readonly config: NatsRelayConfig,
    private readonly onPublished: (outcome: 'published' | 'duplicate' | 'failed') => void = () => undefined,
  ) {
    this.maxInFlight = config.maxInFlight ?? 1_024;
  }

  push(routed: RoutedEvent): Promise<void> | void {
    // At once while connected and not at the limit: the client sends a turn's publishes in one write.
    if (this.connection && this.inFlight < this.maxInFlight && !this.failure) this.publish(this.connection.js, routed);
    else return this.pushWhenReady(routed);
  }

  private async pushWhenReady(routed: RoutedEvent): Promise<void> {
    const { js } = await this.connected();
    while (this.inFlight >= this.maxInFlight && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
    if (!this.failure) this.publish(js, routed);
  }

  private publish(js: JetStreamClient, routed: RoutedEvent): void {
    const entry: Pending = { position: routed.position, done: false };
    const generation = this.generation;
    this.pending.push(entry);
    this.inFlight++;
    js.publish(natsSubject(this.config.subjectPrefix, routed), payloadOf(routed), { msgID: routed.event.id, timeout: 10_000 }).then(
      (ack) => {
        if (generation !== this.generation) return;
        entry.done = true;
        this.onPublished(ack.duplicate ? 'duplicate' : 'published');
      },
      (error: unknown) => {
        if (generation !== this.generation) return;
        this.onPublished('failed');
        this.failure ??= error instanceof Error ? error : new Error(String(error));
      },
    ).finally(() => {
      if (generation === this.generation) this.inFlight--;
      this.wake?.();
      this.wake = null;
    });
  }

  settledThrough(readThrough: number): number {
    while (this.head < this.pending.length && this.pending[this.head]!.done) this.head++;
    if (this.head > 1_024) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
    const first = this.pending[this.head];
    return first ? first.position - 1 : readThrough;
  }

  async reset(): Promise<void> {
    this.generation++;
    this.pending = [];
    this.head = 0;
    this.inFlight = 0;
    this.wake?.();
    this.wake = null;
    if (this.failure) {
      // The connection may be what failed: the next push opens a new one.
      this.failure = null;
      await this.closeConnection();
    }
  }

  async close(): Promise<void> {
    await this.closeConnection();
  }

  private async closeConnection(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    if (connection) await connection.nc.drain().catch(() => connection.nc.close());
  }

  private async connected(): Promise<{ nc: NatsConnection; js: JetStreamClient }> {
    if (this.connection) return this.connection;
    // No async traces: the client would build an Error (its stack) for every publish, in case it fails.
    const nc = await connect({ servers: this.config.url, name: 'import-ledger relay', maxReconnectAttempts: -1, noAsyncTraces: true });
    try {
      const jsm = await jetstreamManager(nc);
      const subjects = [`${this.config.subjectPrefix}.>`];
      await jsm.streams.info(this.config.stream).catch(async (error: unknown) => {
        if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
        await jsm.streams.add({ name: this.config.stream, subjects });
      });
      this.connection = { nc, js: jetstream(nc) };
      return this.connection;
    } catch (error) {
      await nc.close();
      throw error;
    }
  }
}
