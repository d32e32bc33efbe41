import type Database from 'better-sqlite3';
import { elidableEventFields } from '../../events/account-import-process.js';
import { eventMetadataSchema, type EventMetadata, type StoredEvent } from '../../events/envelope.js';
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
  /** The bulk fields (see `splitEventData`); absent when the reader did not select the column. */
  bulk?: string | null;
}

/**
 * How an event's data is stored: its bulk fields (`elidableEventFields` of its
 * type, e.g. the staged account payload) as one JSON object in the `bulk`
 * column, everything else in `data`. `bulk` is null for types without bulk
 * fields. `mergeEventData` is the inverse.
 */
export function splitEventData(type: string, data: unknown): { data: string; bulk: string | null } {
  const fields = elidableEventFields[type];
  if (!fields || typeof data !== 'object' || data === null) return { data: JSON.stringify(data), bulk: null };
  const rest: Record<string, unknown> = {};
  const bulk: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (fields.includes(key)) bulk[key] = value;
    else rest[key] = value;
  }
  return { data: JSON.stringify(rest), bulk: JSON.stringify(bulk) };
}

/**
 * The event's data from its stored columns. With `bulk` not selected
 * (undefined), the bulk fields a split row lacks read as `{}`: a projection
 * rebuild or the feed never loads the payloads (most of the log's bytes).
 * Rows written before the split (`bulk` null) hold everything in `data`.
 */
export function mergeEventData(type: string, data: string, bulk: string | null | undefined): unknown {
  const parsedBulk = bulk ? (JSON.parse(bulk) as Record<string, unknown>) : bulk === undefined ? undefined : null;
  return mergeParsedEventData(type, JSON.parse(data) as Record<string, unknown>, parsedBulk);
}

/** `mergeEventData` on parsed columns (`bulk` undefined: not selected). Mutates and returns `data`. */
export function mergeParsedEventData(type: string, data: Record<string, unknown>, bulk: Record<string, unknown> | null | undefined): unknown {
  if (bulk) return Object.assign(data, bulk);
  if (bulk === undefined) {
    for (const field of elidableEventFields[type] ?? []) if (!(field in data)) data[field] = {};
  }
  return data;
}

/** Parses one row of the events table (stored JSON is a trust boundary: zod parses it, upcasters lift it). */
export function toStoredEvent(row: EventRow): StoredEvent<LedgerEvent> {
  return {
    globalPosition: row.global_position,
    streamId: row.stream_id,
    streamPosition: row.stream_position,
    event: parseLedgerEvent(row.type, row.schema_version, mergeEventData(row.type, row.data, row.bulk)),
    metadata: eventMetadataSchema.parse(JSON.parse(row.metadata)),
    recordedAt: row.recorded_at,
  };
}

/**
 * An event read for a replay: the metadata, which projections do not read, is
 * parsed (and validated) only if it is read. The event is dropped right after
 * it is applied, so nothing holds on to the text for long.
 */
export class ReplayedEvent implements StoredEvent<LedgerEvent> {
  private parsedMetadata: EventMetadata | undefined;

  constructor(
    readonly globalPosition: number,
    readonly streamId: string,
    readonly streamPosition: number,
    readonly event: LedgerEvent,
    private readonly metadataText: string,
    readonly recordedAt: string,
  ) {}

  get metadata(): EventMetadata {
    return (this.parsedMetadata ??= eventMetadataSchema.parse(JSON.parse(this.metadataText)));
  }
}

/** As `toStoredEvent`, for replays (see `ReplayedEvent`). */
export function toReplayedEvent(row: EventRow): StoredEvent<LedgerEvent> {
  const event = parseLedgerEvent(row.type, row.schema_version, mergeEventData(row.type, row.data, row.bulk));
  return new ReplayedEvent(row.global_position, row.stream_id, row.stream_position, event, row.metadata, row.recorded_at);
}

/** The whole log after `after`, in global order, one row at a time: memory stays flat however long the log. */
export function* streamEvents(sqlite: Database.Database, after = 0): Generator<StoredEvent<LedgerEvent>> {
  const rows = sqlite.prepare<[number], EventRow>('SELECT * FROM events WHERE global_position > ? ORDER BY global_position').iterate(after);
  for (const row of rows) yield toStoredEvent(row);
}
