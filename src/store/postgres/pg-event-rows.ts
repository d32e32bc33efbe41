import type pg from 'pg';
import type { CommandMetadata, EventMetadata } from '../../../events/envelope.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { splitEventData } from '../event-codec.js';
import type { StoredLedgerEvent } from '../event-store.js';

/** The events of one append as the log stores them: ids drawn, positions after `last` (global) and `streamVersion` (stream). */
export function storedEvents(
  streamId: string,
  streamVersion: number,
  last: number,
  events: readonly LedgerEvent[],
  metadata: CommandMetadata,
  recordedAt: string,
  newId: () => string,
): StoredLedgerEvent[] {
  return events.map((event, index) => {
    const full: EventMetadata = { eventId: newId(), ...metadata };
    return { globalPosition: last + index + 1, streamId, streamPosition: streamVersion + index + 1, event, metadata: full, recordedAt };
  });
}

const COLUMNS = 10;
/** PostgreSQL takes at most 65,535 parameters a statement. */
const PER_STATEMENT = Math.floor(65_535 / COLUMNS);

/**
 * Sends the INSERTs of `stored` (one statement per 6,553 events), not
 * awaited one by one: the returned promise settles when all did. Data,
 * metadata and bulk fields are stored as text: the exact bytes.
 */
export function insertEvents(client: pg.ClientBase, stored: readonly StoredLedgerEvent[]): Promise<unknown> {
  const statements: Promise<unknown>[] = [];
  for (let i = 0; i < stored.length; i += PER_STATEMENT) {
    const values: unknown[] = [];
    const tuples: string[] = [];
    for (const s of stored.slice(i, i + PER_STATEMENT)) {
      const { data, bulk } = splitEventData(s.event.type, s.event.data);
      const start = values.length;
      values.push(s.globalPosition, s.streamId, s.streamPosition, s.event.type, s.event.version, data, JSON.stringify(s.metadata), s.metadata.eventId, s.recordedAt, bulk);
      tuples.push(`(${Array.from({ length: COLUMNS }, (_, j) => `$${start + j + 1}`).join(', ')})`);
    }
    statements.push(
      client.query({
        text: `INSERT INTO events (global_position, stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at, bulk) VALUES ${tuples.join(', ')}`,
        values,
      }),
    );
  }
  return Promise.all(statements);
}
