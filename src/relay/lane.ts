import type { Logger } from 'pino';
import { toExternalEvent, type RoutedEvent } from '../external-events/catalogue.js';
import type { EventLog } from '../store/event-log.js';
import type { RelayCursor, RelayStore } from '../store/relay-store.js';
import { realSleep, type Sleep } from '../worker/sleep.js';
import type { TailPage } from './shared-tail.js';

/**
 * Where a lane hands the events it reads, in log order: a NATS stream, a webhook endpoint. It says how far
 * everything it was given is settled (delivered, or kept durably for a retry), which is how far the lane's
 * stored position may move: a kill at any moment loses nothing, and repeats at most what was in flight.
 */
export interface RelaySink {
  /**
   * Takes the next event; a promise when the sink must be waited for (its own backpressure, a connection),
   * else nothing: a batch of the log is handed over in one turn of the event loop, so what the sink writes for
   * it goes out in as few writes as its client gathers.
   */
  push(event: RoutedEvent): Promise<void> | void;
  /** The highest position through which every event pushed is settled, given that the lane has read through `readThrough`. */
  settledThrough(readThrough: number): number;
  /** A failure that stops the lane (the broker is down): the lane waits, resets the sink and reads again from its stored position. */
  readonly failure: Error | null;
  /** Forgets what it holds and what it was sending (a replay, a lost lease, a failure): what it held is read again. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export interface LaneOptions {
  /** The relay's name in the store (`nats`, `webhook:<id>`). */
  readonly name: string;
  readonly holder: string;
  /** The log, for its wake-ups on appends. */
  readonly log: EventLog;
  /** Where the lane reads its pages of the log's relay events (the thread's shared tail, src/relay/shared-tail.ts). */
  readonly tail: { page(after: number, limit: number): Promise<TailPage> };
  readonly relays: RelayStore;
  readonly sink: RelaySink;
  readonly logger: Logger;
  /** Which routed events go to the sink (a webhook endpoint's supplier and types). */
  readonly accepts: (event: RoutedEvent) => boolean | Promise<boolean>;
  /** Where a new relay starts: the log's end for a new webhook endpoint, 0 for NATS. */
  readonly initialPosition: () => Promise<number>;
  /** A replay asked for since the stored `replaySeq` (an endpoint's `replay/`): the position to read again from. */
  readonly replay?: (replaySeq: number) => Promise<{ readonly replaySeq: number; readonly fromPosition: number } | null>;
  readonly now?: () => number;
  readonly sleep?: Sleep;
  readonly leaseMs?: number;
  /** How often the stored position moves at most (each move is a write). */
  readonly persistEveryMs?: number;
  readonly batchSize?: number;
  /** Told of the lane's position and how far the log is ahead (metrics). */
  readonly onProgress?: (progress: LaneProgress) => void;
}

export interface LaneProgress {
  readonly settledThrough: number;
  readonly readThrough: number;
}

const DEFAULTS = { leaseMs: 15_000, persistEveryMs: 1_000, batchSize: 1_000 };

/**
 * One relay of events out: it holds the relay's lease (one instance at a time; a dead instance's lease runs
 * out and another takes over), reads the catalogue's events from the log after its stored position, hands
 * them to its sink and moves the stored position as the sink settles them. No request ever waits on it.
 */
export class RelayLane {
  private cursor: RelayCursor | null = null;
  private readThrough = 0;
  private lastPersistMs = 0;
  private readonly options: LaneOptions & typeof DEFAULTS;

  constructor(options: LaneOptions) {
    this.options = { ...DEFAULTS, ...options };
  }

  get position(): number | null {
    return this.cursor?.position ?? null;
  }

  /** Runs until `signal` aborts: waits for the lease, then relays; gives the lease back on the way out. */
  async run(signal: AbortSignal): Promise<void> {
    const { logger, sleep = realSleep, persistEveryMs } = this.options;
    // The lease is renewed (and the position stored) on a beat of its own, so a sink that holds a push back
    // (a slow receiver) does not let the lease run out under it.
    const beat = setInterval(() => {
      if (this.cursor) this.persist(false).catch((error: unknown) => logger.warn({ err: error, relay: this.options.name }, 'relay: could not store its position'));
    }, persistEveryMs);
    // A sink holding a push back (its receiver down) lets go at once on a stop.
    const closeSink = () => void this.options.sink.close();
    signal.addEventListener('abort', closeSink, { once: true });
    let failures = 0;
    try {
      while (!signal.aborted) {
        try {
          if (!this.cursor && !(await this.acquire())) {
            await sleep(this.options.leaseMs / 3, signal);
            continue;
          }
          await this.turn(signal);
          failures = 0;
        } catch (error) {
          failures++;
          logger.warn({ err: error, relay: this.options.name, failures }, 'relay: could not read, deliver or record; retrying');
          await this.dropHold();
          await sleep(Math.min(1_000 * 2 ** Math.min(failures - 1, 5), 30_000), signal);
        }
      }
    } finally {
      clearInterval(beat);
      signal.removeEventListener('abort', closeSink);
      await this.options.sink.close().catch(() => undefined);
      if (this.cursor) {
        await this.persist(true).catch(() => undefined);
        await this.options.relays.release(this.options.name, this.options.holder).catch(() => undefined);
      }
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private async acquire(): Promise<boolean> {
    const { relays, name, holder, leaseMs } = this.options;
    const initial = { position: await this.options.initialPosition(), replaySeq: 0 };
    this.cursor = await relays.acquire(name, holder, this.now(), leaseMs, initial);
    if (!this.cursor) return false;
    this.readThrough = this.cursor.position;
    this.lastPersistMs = this.now();
    this.options.logger.info({ relay: name, position: this.cursor.position }, 'relay: holding');
    return true;
  }

  /** After a failure: the sink forgets what it held, and the lane reads again from the stored position. */
  private async dropHold(): Promise<void> {
    await this.options.sink.reset().catch(() => undefined);
    if (this.cursor) this.readThrough = this.cursor.position;
  }

  /** One batch of the log after what was read, to the sink; then the stored position, when it is time. */
  private async turn(signal: AbortSignal): Promise<void> {
    const { log, tail, sink, batchSize } = this.options;
    if (sink.failure) throw sink.failure;
    const replay = await this.options.replay?.(this.cursor!.replaySeq);
    if (replay) {
      await sink.reset();
      this.cursor = { position: Math.max(0, replay.fromPosition - 1), replaySeq: replay.replaySeq };
      this.readThrough = this.cursor.position;
      await this.persist(true);
      return;
    }
    const page = await tail.page(this.readThrough, batchSize);
    for (const stored of page.events) {
      const routed = toExternalEvent(stored);
      const accepted = routed && this.options.accepts(routed);
      if (accepted && (accepted === true || (await accepted))) {
        const pushed = sink.push(routed!);
        if (pushed) await pushed;
      }
      // The lease was lost meanwhile (the beat found another holder): stop; what was read is read again by whoever holds it.
      if (!this.cursor) return;
      this.readThrough = stored.globalPosition;
      if (sink.failure) throw sink.failure;
    }
    // A page shorter than asked read the log to its end: everything up to it is read.
    const read = page.events.length;
    if (read < batchSize) this.readThrough = Math.max(this.readThrough, page.through);
    await this.persist(false);
    if (read < batchSize && this.cursor) await log.waitForAppend(this.readThrough, this.options.persistEveryMs, signal);
  }

  private persisting: Promise<void> = Promise.resolve();

  /** Stores how far the sink settled (at most every `persistEveryMs`, or now when `force`), renewing the lease; one at a time. */
  private persist(force: boolean): Promise<void> {
    const next = this.persisting.then(() => this.persistNow(force));
    this.persisting = next.catch(() => undefined);
    return next;
  }

  private async persistNow(force: boolean): Promise<void> {
    const { relays, name, holder, leaseMs, persistEveryMs, sink } = this.options;
    const cursor = this.cursor;
    if (!cursor) return;
    const settled = Math.max(cursor.position, sink.settledThrough(this.readThrough));
    this.options.onProgress?.({ settledThrough: settled, readThrough: this.readThrough });
    const now = this.now();
    if (!force && now - this.lastPersistMs < persistEveryMs) return;
    const next = { position: settled, replaySeq: cursor.replaySeq };
    if (!(await relays.advance(name, holder, now, leaseMs, next))) {
      this.options.logger.warn({ relay: name }, 'relay: another instance took it over');
      this.cursor = null;
      await sink.reset();
      return;
    }
    // A replay may have moved the cursor while this write was on its way: that one stands.
    if (this.cursor === cursor) this.cursor = next;
    this.lastPersistMs = now;
  }
}
