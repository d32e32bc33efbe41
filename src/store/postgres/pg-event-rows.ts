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

/** One statement text whatever the number of events (column arrays, unnested): prepared once per connection. */
const INSERT_EVENTS = {
  name: 'ledger_insert_events_1',
  text: `INSERT INTO events (global_position, stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at, bulk)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])`,
};

/**
 * Up to this many events, a statement of plain parameters (prepared once per row count): an array literal
 * escapes every quote of the event's JSON, which PostgreSQL parses back.
 */
const MAX_VALUES_ROWS = 64;
const COLUMNS = 10;
const valuesStatements: { name: string; text: string }[] = [];
function valuesStatement(rows: number): { name: string; text: string } {
  let statement = valuesStatements[rows];
  if (!statement) {
    const tuples = Array.from({ length: rows }, (_, r) => `(${Array.from({ length: COLUMNS }, (_, c) => `$${r * COLUMNS + c + 1}`).join(', ')})`);
    statement = {
      name: `ledger_insert_events_v${rows}`,
      text: `INSERT INTO events (global_position, stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at, bulk) VALUES ${tuples.join(', ')}`,
    };
    valuesStatements[rows] = statement;
  }
  return statement;
}

/** An event's row, in the columns' order: data, metadata and bulk fields as text (the exact bytes). */
function eventRow(s: StoredLedgerEvent): unknown[] {
  const { data, bulk } = splitEventData(s.event.type, s.event.data);
  return [s.globalPosition, s.streamId, s.streamPosition, s.event.type, s.event.version, data, JSON.stringify(s.metadata), s.metadata.eventId, s.recordedAt, bulk];
}

/** Sends the INSERTs of `stored`, not awaited one by one: the returned promise settles when all did. */
export function insertEvents(client: pg.ClientBase, stored: readonly StoredLedgerEvent[]): Promise<unknown> {
  if (stored.length === 0) return Promise.resolve([]);
  if (stored.length <= MAX_VALUES_ROWS) return client.query({ ...valuesStatement(stored.length), values: stored.flatMap(eventRow) });
  const statements: Promise<unknown>[] = [];
  for (let i = 0; i < stored.length; i += PER_STATEMENT) {
    const columns: unknown[][] = Array.from({ length: COLUMNS }, () => []);
    for (const s of stored.slice(i, i + PER_STATEMENT)) eventRow(s).forEach((value, j) => columns[j]!.push(value));
    statements.push(client.query({ ...INSERT_EVENTS, values: columns }));
  }
  return Promise.all(statements);
}
