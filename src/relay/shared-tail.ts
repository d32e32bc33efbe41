import type { LedgerEventType } from '../../events/registry.js';
import type { EventLog } from '../store/event-log.js';
import type { StoredLedgerEvent } from '../store/event-store.js';

/** One page of the log's relay events after a position: the events, and the position the page covers through. */
export interface TailPage {
  readonly events: readonly StoredLedgerEvent[];
  readonly through: number;
}

/**
 * The tail of the log the relay lanes of one thread read, each at its own pace (NATS and every webhook
 * endpoint): a page one lane read from the log is kept for the others, so each event is read and decoded once
 * per thread rather than once per lane. It keeps the last `keep` events of a window that holds every relay
 * event in (from, through]; a lane behind the window (a replay, a late endpoint) reads the log itself, and a
 * read that starts at or past the window's end moves the window on.
 */
export class SharedTail {
  private events: StoredLedgerEvent[] = [];
  private from = 0;
  private through = 0;

  constructor(
    private readonly log: EventLog,
    private readonly types: readonly LedgerEventType[],
    private readonly keep = 5_000,
  ) {}

  /** At most `limit` relay events after `after`; `through` is the last event's position for a full page, else how far the log was read. */
  async page(after: number, limit: number): Promise<TailPage> {
    if (after >= this.from && after < this.through) {
      const start = firstAfter(this.events, after);
      const events = this.events.slice(start, start + limit);
      return { events, through: events.length === limit ? events.at(-1)!.globalPosition : this.through };
    }
    const page = await this.read(after, limit);
    if (after >= this.through) this.extend(after, page);
    return page;
  }

  private async read(after: number, limit: number): Promise<TailPage> {
    const snapshot = await this.log.open({ after, types: this.types, limit, withBulkFields: false });
    const events: StoredLedgerEvent[] = [];
    try {
      for await (const batch of snapshot) events.push(...batch);
    } finally {
      await snapshot.close();
    }
    return { events, through: events.length === limit ? events.at(-1)!.globalPosition : snapshot.through };
  }

  /** The window takes the page read from its end (or, past it, starts again at the page). */
  private extend(after: number, page: TailPage): void {
    if (after > this.through) {
      this.events = [];
      this.from = after;
      this.through = after;
    }
    this.events.push(...page.events);
    this.through = Math.max(this.through, page.through);
    const drop = this.events.length - this.keep;
    if (drop > 0) {
      this.from = this.events[drop - 1]!.globalPosition;
      this.events = this.events.slice(drop);
    }
  }
}

/** The index of the first event after `position` (events in ascending order). */
function firstAfter(events: readonly StoredLedgerEvent[], position: number): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (events[mid]!.globalPosition <= position) low = mid + 1;
    else high = mid;
  }
  return low;
}
