import type { Logger } from 'pino';
import type { RoutedEvent } from '../../external-events/catalogue.js';
import type { ParkedMessage, RelayStore } from '../../store/relay-store.js';
import type { AttemptRow } from '../../store/webhook-storage.js';
import type { RelaySink } from '../lane.js';
import { payloadOf } from '../nats-sink.js';
import type { Deliver, DeliveryResult } from './deliver.js';
import { retryWaitMs } from './retry-schedule.js';
import { signatureHeader } from './signature.js';

export interface WebhookSinkOptions {
  readonly endpointId: string;
  readonly url: string;
  readonly deliver: Deliver;
  /** The endpoint's signing secrets, newest first (during a rotation, the old one too). */
  readonly secrets: () => Promise<readonly string[]>;
  readonly relays: RelayStore;
  /** A parked message's event, read again from the log. */
  readonly readEvent: (position: number) => Promise<RoutedEvent | null>;
  readonly recordAttempt: (attempt: AttemptRow) => void;
  /** Disables the endpoint (a 410, or failing for `disableAfterMs`): recorded as an event by the caller. */
  readonly disable: (reason: 'gone' | 'failing', detail: string) => Promise<void>;
  /** The waits before each attempt (LEDGER_WEBHOOK_RETRY_SCHEDULE). */
  readonly schedule: readonly number[];
  readonly disableAfterMs: number;
  /** Deliveries in flight at once (different accounts). */
  readonly concurrency: number;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly random?: () => number;
  /** Messages read ahead of the first unsettled one at most. */
  readonly windowSize?: number;
}

type State = 'queued' | 'sending' | 'waiting' | 'done' | 'parked';

interface Message {
  readonly routed: RoutedEvent;
  readonly body: string;
  state: State;
  attempts: number;
  retryAt: number;
  firstFailedAt: number | null;
}

/** Attempts in a row that all failed: the endpoint is down, not one account's message. */
const DOWN_AFTER = 5;
const TICK_MS = 100;
/** Parked messages loaded at most (they are one endpoint's failures while it delivered others: few). */
const PARKED_LOAD_LIMIT = 100_000;

export class EndpointDisabled extends Error {
  override name = 'EndpointDisabled';
}

/**
 * Delivers one endpoint's messages as the Standard Webhooks specification says, at least once and in
 * order per ordering key (an account): a key's next message is sent once the one before it was delivered;
 * different keys go in parallel (`concurrency`). A message that fails while others are delivered is parked
 * in the store with the later messages of its key (so the endpoint's position moves on: one failing
 * account holds no other back) and retried on the schedule. When every recent attempt failed, the endpoint
 * is down: nothing more is read, and its earliest failed message is retried on the schedule until one is
 * delivered. Failing past `disableAfterMs` (or a 410) disables the endpoint; nothing is dropped.
 */
export class WebhookSink implements RelaySink {
  private window: Message[] = [];
  private head = 0;
  /** Per ordering key, its messages not yet delivered or parked, oldest first: the first is the one that may go. */
  private readonly keys = new Map<string, Message[]>();
  private ready: Message[] = [];
  private sending = 0;
  private recent: boolean[] = [];
  private downSince: number | null = null;
  /** Per ordering key, its parked messages (oldest first); null until loaded. */
  private parked: Map<string, ParkedMessage[]> | null = null;
  private readonly retrying = new Set<string>();
  private generation = 0;
  private roomWaiters: (() => void)[] = [];
  private readonly timer: NodeJS.Timeout;
  private disabled: EndpointDisabled | null = null;
  failure: Error | null = null;

  constructor(private readonly options: WebhookSinkOptions) {
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private get down(): boolean {
    return this.recent.length >= DOWN_AFTER && this.recent.every((ok) => !ok);
  }

  /** Messages read ahead and not yet delivered or parked (the head moved past the settled ones first). */
  private get unsettled(): number {
    this.advanceHead();
    return this.window.length - this.head;
  }

  private advanceHead(): void {
    while (this.head < this.window.length && (this.window[this.head]!.state === 'done' || this.window[this.head]!.state === 'parked')) this.head++;
    if (this.head > 4_096) {
      this.window = this.window.slice(this.head);
      this.head = 0;
    }
  }

  push(routed: RoutedEvent): Promise<void> | void {
    const room = !this.failure && !this.down && this.unsettled < (this.options.windowSize ?? 10_000);
    if (!(this.parked && room && !this.parked.has(routed.orderingKey))) return this.pushWhenReady(routed);
    this.take(routed);
  }

  private async pushWhenReady(routed: RoutedEvent): Promise<void> {
    const parked = await this.loadParked();
    while (!this.failure && (this.down || this.unsettled >= (this.options.windowSize ?? 10_000))) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    if (this.failure) return;
    const behind = parked.get(routed.orderingKey);
    if (!behind) return this.take(routed);
    const message: Message = { routed, body: payloadOf(routed), state: 'queued', attempts: 0, retryAt: 0, firstFailedAt: null };
    this.window.push(message);
    // Its key waits for a parked message: it waits in the store too (unless a run before this one parked it already).
    if (!behind.some((p) => p.position === routed.position)) {
      const row: ParkedMessage = { endpointId: this.options.endpointId, position: routed.position, orderingKey: routed.orderingKey, attempts: 0, nextAttemptAtMs: null, firstFailedAtMs: this.now() };
      behind.push(row);
      await this.options.relays.park([row]);
    }
    message.state = 'parked';
  }

  /** A message of a key no parked message holds back: queued behind its key's earlier ones, or sent. */
  private take(routed: RoutedEvent): void {
    const message: Message = { routed, body: payloadOf(routed), state: 'queued', attempts: 0, retryAt: 0, firstFailedAt: null };
    this.window.push(message);
    const queue = this.keys.get(routed.orderingKey);
    if (queue) queue.push(message);
    else {
      this.keys.set(routed.orderingKey, [message]);
      this.ready.push(message);
    }
    this.pump();
  }

  settledThrough(readThrough: number): number {
    this.advanceHead();
    const first = this.window[this.head];
    return first ? first.routed.position - 1 : readThrough;
  }

  async reset(): Promise<void> {
    this.generation++;
    this.window = [];
    this.head = 0;
    this.keys.clear();
    this.ready = [];
    this.sending = 0;
    this.recent = [];
    this.downSince = null;
    this.parked = null;
    this.retrying.clear();
    this.failure = this.disabled;
    this.wakeRoom();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.generation++;
    this.failure ??= new Error('closed');
    this.wakeRoom();
  }

  private wakeRoom(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const wake of waiters) wake();
  }

  private async loadParked(): Promise<Map<string, ParkedMessage[]>> {
    if (this.parked) return this.parked;
    const parked = new Map<string, ParkedMessage[]>();
    for (const row of await this.options.relays.parked(this.options.endpointId, PARKED_LOAD_LIMIT)) {
      const list = parked.get(row.orderingKey);
      if (list) list.push(row);
      else parked.set(row.orderingKey, [{ ...row, nextAttemptAtMs: row.nextAttemptAtMs ?? this.now() }]);
    }
    this.parked ??= parked;
    return this.parked;
  }

  private pump(): void {
    if (this.down) return;
    while (this.sending < this.options.concurrency && this.ready.length > 0) this.start(this.ready.shift()!);
  }

  private start(message: Message): void {
    const generation = this.generation;
    message.state = 'sending';
    this.sending++;
    void this.attempt(message.routed, message.body, message.attempts + 1).then((result) => {
      if (generation === this.generation) void this.settle(message, result, generation);
    });
  }

  /** One signed POST, recorded in the delivery log; a failure to sign or send is a failed attempt, never a throw. */
  private async attempt(routed: RoutedEvent, body: string, attempt: number): Promise<DeliveryResult> {
    const { endpointId, url } = this.options;
    const at = this.now();
    let result: DeliveryResult;
    try {
      const timestamp = Math.floor(at / 1000);
      const signature = signatureHeader(await this.options.secrets(), routed.event.id, timestamp, body);
      const headers = { 'webhook-id': routed.event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
      result = await this.options.deliver(url, headers, body);
    } catch (error) {
      result = { status: null, durationMs: Math.round(this.now() - at), error: error instanceof Error ? error.message : String(error), retryAfterMs: null };
    }
    const delivered = isDelivered(result);
    this.options.recordAttempt({
      endpointId,
      messageId: routed.event.id,
      eventType: routed.event.type,
      position: routed.position,
      attempt,
      statusCode: result.status,
      durationMs: result.durationMs,
      error: delivered ? null : result.error,
      outcome: delivered ? 'delivered' : 'failed',
      attemptedAt: new Date(at).toISOString(),
    });
    this.recent.push(delivered);
    if (this.recent.length > DOWN_AFTER) this.recent.shift();
    return result;
  }

  private async settle(message: Message, result: DeliveryResult, generation: number): Promise<void> {
    this.sending--;
    message.attempts++;
    const key = message.routed.orderingKey;
    if (isDelivered(result)) {
      message.state = 'done';
      const recovered = this.downSince !== null;
      this.downSince = null;
      const queue = this.keys.get(key)!;
      queue.shift();
      if (queue.length > 0) this.ready.push(queue[0]!);
      else this.keys.delete(key);
      // Back up: what waits in memory goes again, and the parked messages are due now.
      if (recovered) this.resume();
    } else if (result.status === 410) {
      await this.stop('gone', `the receiver answered 410 Gone at ${this.options.url}`);
      return;
    } else {
      const now = this.now();
      message.firstFailedAt ??= now;
      message.retryAt = now + retryWaitMs(this.options.schedule, message.attempts, result.retryAfterMs, this.options.random);
      if (this.down) {
        message.state = 'waiting';
        this.downSince ??= message.firstFailedAt;
      } else {
        await this.park(key, message, generation);
        if (generation !== this.generation) return;
      }
    }
    this.wakeRoom();
    this.pump();
  }

  /**
   * The message and the later ones of its key wait in the store: the endpoint's position may move past them.
   * The key counts as parked from this moment (a message of it pushed while the write runs queues behind it);
   * the messages count as settled once the write is done.
   */
  private async park(key: string, message: Message, generation: number): Promise<void> {
    const queue = this.keys.get(key) ?? [message];
    this.keys.delete(key);
    this.ready = this.ready.filter((m) => m.routed.orderingKey !== key);
    const now = this.now();
    const rows = queue.map(
      (m, i): ParkedMessage => ({
        endpointId: this.options.endpointId,
        position: m.routed.position,
        orderingKey: key,
        attempts: i === 0 ? m.attempts : 0,
        nextAttemptAtMs: i === 0 ? m.retryAt : null,
        firstFailedAtMs: i === 0 ? (m.firstFailedAt ?? now) : now,
      }),
    );
    this.parked?.set(key, rows);
    try {
      await this.options.relays.park(rows);
    } catch (error) {
      this.failure ??= error instanceof Error ? error : new Error(String(error));
      return;
    }
    if (generation !== this.generation) return;
    for (const m of queue) m.state = 'parked';
  }

  private resume(): void {
    for (const m of this.window.slice(this.head)) if (m.state === 'waiting') m.retryAt = 0;
    const now = this.now();
    for (const list of this.parked?.values() ?? []) list[0] = { ...list[0]!, nextAttemptAtMs: now };
  }

  private async stop(reason: 'gone' | 'failing', detail: string): Promise<void> {
    if (this.disabled) return;
    this.disabled = new EndpointDisabled(detail);
    this.failure = this.disabled;
    this.wakeRoom();
    this.options.logger.warn({ endpoint: this.options.endpointId, reason, detail }, 'webhook endpoint disabled');
    await this.options.disable(reason, detail).catch((error: unknown) => this.options.logger.error({ err: error, endpoint: this.options.endpointId }, 'could not record the endpoint disabled'));
  }

  /** Retries what is due: the earliest waiting message while the endpoint is down (one at a time), and the parked keys' first messages. */
  private tick(): void {
    if (this.failure) return;
    const now = this.now();
    const failingSince = Math.min(this.downSince ?? Infinity, ...[...(this.parked?.values() ?? [])].map((list) => list[0]!.firstFailedAtMs));
    if (now - failingSince > this.options.disableAfterMs) {
      void this.stop('failing', `failing since ${new Date(failingSince).toISOString()}`);
      return;
    }
    const waiting = this.window.slice(this.head).filter((m) => m.state === 'waiting' && m.retryAt <= now);
    const parked = [...(this.parked ?? [])].filter(([key, list]) => !this.retrying.has(key) && (list[0]!.nextAttemptAtMs ?? 0) <= now);
    if (this.down) {
      // One probe at a time, the earliest due message, waiting in memory or parked.
      if (this.sending > 0 || this.retrying.size > 0) return;
      const probe = waiting.sort((a, b) => a.routed.position - b.routed.position)[0];
      const first = parked.sort(([, a], [, b]) => a[0]!.position - b[0]!.position)[0];
      if (probe && (!first || probe.routed.position < first[1][0]!.position)) this.start(probe);
      else if (first) void this.retryParked(first[0], first[1][0]!);
      return;
    }
    for (const m of waiting) this.start(m);
    for (const [key, list] of parked) void this.retryParked(key, list[0]!);
  }

  private async retryParked(key: string, parked: ParkedMessage): Promise<void> {
    const generation = this.generation;
    this.retrying.add(key);
    try {
      const routed = await this.options.readEvent(parked.position);
      const result = routed ? await this.attempt(routed, payloadOf(routed), parked.attempts + 1) : null;
      if (generation !== this.generation) return;
      const list = this.parked!.get(key)!;
      if (result === null || isDelivered(result)) {
        await this.options.relays.unpark(this.options.endpointId, { positions: [parked.position] });
        list.shift();
        if (list.length === 0) this.parked!.delete(key);
        else list[0] = { ...list[0]!, nextAttemptAtMs: this.now() };
        if (this.downSince !== null) {
          this.downSince = null;
          this.resume();
        }
        this.wakeRoom();
        this.pump();
      } else if (result.status === 410) {
        await this.stop('gone', `the receiver answered 410 Gone at ${this.options.url}`);
      } else {
        const attempts = parked.attempts + 1;
        const next: ParkedMessage = { ...parked, attempts, nextAttemptAtMs: this.now() + retryWaitMs(this.options.schedule, attempts, result.retryAfterMs, this.options.random) };
        if (this.down) this.downSince ??= parked.firstFailedAtMs;
        await this.options.relays.park([next]);
        list[0] = next;
      }
    } catch (error) {
      this.options.logger.warn({ err: error, endpoint: this.options.endpointId }, 'webhook: a parked message could not be retried');
    } finally {
      if (generation === this.generation) this.retrying.delete(key);
    }
  }
}

const isDelivered = (result: DeliveryResult): boolean => result.status !== null && result.status >= 200 && result.status < 300;
