import type Database from 'better-sqlite3';
import { eventMetadataSchema, type StoredEvent } from '../../events/envelope.js';
import { parseLedgerEvent, type LedgerEvent } from '../../events/registry.js';

export interface EventRow {
  global_position: number;
  stream_id: string;
  stream_position: number;
  type: string;
  schema_version: number;
  data: string;
  metadata: string;
  recorded_at: string;
}

/** Parses one row of the events table (stored JSON is a trust boundary: zod parses it, upcasters lift it). */
export function toStoredEvent(row: EventRow): StoredEvent<LedgerEvent> {
  return {
    globalPosition: row.global_position,
    streamId: row.stream_id,
    streamPosition: row.stream_position,
    event: parseLedgerEvent(row.type, row.schema_version, JSON.parse(row.data)),
    metadata: eventMetadataSchema.parse(JSON.parse(row.metadata)),
    recordedAt: row.recorded_at,
  };
}

/** The whole log after `after`, in global order, one row at a time: memory stays flat however long the log. */
export function* streamEvents(sqlite: Database.Database, after = 0): Generator<StoredEvent<LedgerEvent>> {
  const rows = sqlite.prepare<[number], EventRow>('SELECT * FROM events WHERE global_position > ? ORDER BY global_position').iterate(after);
  for (const row of rows) yield toStoredEvent(row);
}
