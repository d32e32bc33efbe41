import { Counter, Gauge, type Registry } from 'prom-client';
import type { LaneProgress } from './lane.js';

/** What the relays tell of their work: deliveries by outcome, each relay's progress, a relay let go. */
export interface RelayObserver {
  delivered(relay: string, outcome: string, count?: number): void;
  progress(relay: string, progress: LaneProgress): void;
  forget(relay: string): void;
}

/**
 * Events out, on the service's registry (docs/operations.md "Metrics"): deliveries by relay and outcome, and
 * each relay's lag behind the log, in events and in seconds (how long ago the oldest event it has not
 * settled was read from the log: 0 when it is caught up).
 */
export class RelayMetrics implements RelayObserver {
  private readonly deliveries: Counter<'relay' | 'outcome'>;
  private readonly lagEvents: Gauge<'relay'>;
  private readonly lagSeconds: Gauge<'relay'>;
  /** Per relay: since when its settled position has stood behind what it read. */
  private readonly behindSince = new Map<string, { settled: number; sinceMs: number }>();

  constructor(
    registry: Registry,
    private readonly logPosition: () => Promise<number>,
    private readonly now: () => number = Date.now,
  ) {
    const registers = [registry];
    this.deliveries = new Counter({
      name: 'ledger_relay_deliveries_total',
      help: 'Events out: deliveries by relay (nats, webhook:<endpoint id>) and outcome (delivered, failed; NATS: published, duplicate, failed).',
      labelNames: ['relay', 'outcome'],
      registers,
    });
    const progress = this.behindSince;
    const log = this.logPosition;
    this.lagEvents = new Gauge({
      name: 'ledger_relay_lag_events',
      help: "Events out: events in the log after the relay's settled position (events of no interest to it included).",
      labelNames: ['relay'],
      registers,
      async collect() {
        const last = await log();
        for (const [relay, { settled }] of progress) this.set({ relay }, Math.max(0, last - settled));
      },
    });
    this.lagSeconds = new Gauge({
      name: 'ledger_relay_lag_seconds',
      help: 'Events out: how long the relay has had events read and not settled (0: caught up).',
      labelNames: ['relay'],
      registers,
    });
  }

  delivered(relay: string, outcome: string, count = 1): void {
    this.deliveries.inc({ relay, outcome }, count);
  }

  progress(relay: string, { settledThrough, readThrough }: LaneProgress): void {
    const now = this.now();
    const before = this.behindSince.get(relay);
    const caughtUp = settledThrough >= readThrough;
    const sinceMs = caughtUp || !before || before.settled !== settledThrough ? now : before.sinceMs;
    this.behindSince.set(relay, { settled: settledThrough, sinceMs });
    this.lagSeconds.set({ relay }, caughtUp ? 0 : (now - sinceMs) / 1000);
  }

  /** A relay no longer runs here (another instance holds it, or its endpoint is gone). */
  forget(relay: string): void {
    this.behindSince.delete(relay);
    this.lagEvents.remove({ relay });
    this.lagSeconds.remove({ relay });
  }
}
