import type { EventLog } from '../store/event-log.js';
import type { StoredLedgerEvent } from '../store/event-store.js';

export interface StreamEventReadModels {
  /**
   * At most `limit` events of `streams` after global position `after`, in global order: one bounded read
   * per stream, whatever its length. `withBulkFields: false` leaves the staged payloads out (read as `{}`).
   */
  streamEventsPage(streams: readonly string[], after: number, limit: number, options?: { withBulkFields?: boolean }): Promise<StoredLedgerEvent[]>;
}

export function createStreamEventReadModels(log: EventLog): StreamEventReadModels {
  return {
    async streamEventsPage(streams, after, limit, options = {}) {
      const page = await log.open({ streams, after, limit, withBulkFields: options.withBulkFields ?? true });
      const events: StoredLedgerEvent[] = [];
      for await (const batch of page) events.push(...batch);
      return events;
    },
  };
}
