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

/** Events a statement inserts at most (its arrays stay a few megabytes). */
const PER_STATEMENT = 2_000;

/**
 * One statement text whatever the number of events (column arrays, unnested), so it is prepared once per
 * connection (a named statement: PostgreSQL parses and plans it once).
 */
const INSERT_EVENTS = {
  name: 'ledger_insert_events_1',
  text: `INSERT INTO events (global_position, stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at, bulk)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])`,
};

/**
 * Sends the INSERTs of `stored` (one statement per 2,000 events), not
 * awaited one by one: the returned promise settles when all did. Data,
 * metadata and bulk fields are stored as text: the exact bytes.
 */
export function insertEvents(client: pg.ClientBase, stored: readonly StoredLedgerEvent[]): Promise<unknown> {
  const statements: Promise<unknown>[] = [];
  for (let i = 0; i < stored.length; i += PER_STATEMENT) {
    const columns: unknown[][] = Array.from({ length: 10 }, () => []);
    for (const s of stored.slice(i, i + PER_STATEMENT)) {
      const { data, bulk } = splitEventData(s.event.type, s.event.data);
      const row = [s.globalPosition, s.streamId, s.streamPosition, s.event.type, s.event.version, data, JSON.stringify(s.metadata), s.metadata.eventId, s.recordedAt, bulk];
      row.forEach((value, j) => columns[j]!.push(value));
    }
    statements.push(client.query({ ...INSERT_EVENTS, values: columns }));
  }
  return Promise.all(statements);
}
