import { LRUCache } from 'lru-cache';
import type { StoredLedgerEvent } from './event-store.js';

/**
 * Streams a command read before its write (process reads its account to gather its facts), kept until the
 * write takes them: the write then starts from them rather than reading the stream again. A hint, never
 * trusted beyond its length (the write checks the stream has not moved on) and never worth holding a long stream.
 */
export class ReadAhead {
  private readonly streams: LRUCache<string, readonly StoredLedgerEvent[]>;

  constructor(
    capacity: number,
    private readonly longest: number,
  ) {
    this.streams = new LRUCache({ max: capacity });
  }

  remember(streamId: string, events: readonly StoredLedgerEvent[]): void {
    if (events.length <= this.longest) this.streams.set(streamId, events);
  }

  take(streamId: string): readonly StoredLedgerEvent[] | undefined {
    const events = this.streams.get(streamId);
    this.streams.delete(streamId);
    return events;
  }
}
