import { eventMetadataSchema, type EventMetadata, type StoredEvent } from '../../events/envelope.js';
import { parseLedgerEvent, type LedgerEvent, type LedgerEventType } from '../../events/registry.js';

/**
 * The storage layout, not the events' contract: an event's bulk fields (the staged account payload, most of
 * the log's bytes) are kept apart in the `bulk` column, so readers that do not need them never load them.
 */
export const bulkEventFields: Readonly<Partial<Record<LedgerEventType, readonly string[]>>> = {
  AccountStaged: ['payload'],
  AccountRestaged: ['payload'],
};

/** The one bulk field of the events that have any: a decider's `payloadKeysFolded` names keys of it. */
export const STAGED_PAYLOAD_FIELD = 'payload';

const bulkFieldsOf = (type: string): readonly string[] | undefined => bulkEventFields[type as LedgerEventType];

/** A stored event as its columns hold it. */
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

/** An event's data as stored: its bulk fields as one JSON object in `bulk` (null without any), the rest in `data`. */
export function splitEventData(type: string, data: unknown): { data: string; bulk: string | null } {
  const fields = bulkFieldsOf(type);
  if (!fields || typeof data !== 'object' || data === null) return { data: JSON.stringify(data), bulk: null };
  const rest: Record<string, unknown> = {};
  const bulk: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (fields.includes(key)) bulk[key] = value;
    else rest[key] = value;
  }
  return { data: JSON.stringify(rest), bulk: JSON.stringify(bulk) };
}

/** The event's data from its stored columns; with `bulk` not selected (undefined), the bulk fields read as `{}`. */
export function mergeEventData(type: string, data: string, bulk: string | null | undefined): unknown {
  const parsedBulk = bulk ? (JSON.parse(bulk) as Record<string, unknown>) : bulk === undefined ? undefined : null;
  return mergeParsedEventData(type, JSON.parse(data) as Record<string, unknown>, parsedBulk);
}

/** `mergeEventData` on parsed columns (`bulk` undefined: not selected). Mutates and returns `data`. */
export function mergeParsedEventData(type: string, data: Record<string, unknown>, bulk: Record<string, unknown> | null | undefined): unknown {
  if (bulk) return Object.assign(data, bulk);
  if (bulk === undefined) {
    for (const field of bulkFieldsOf(type) ?? []) if (!(field in data)) data[field] = {};
  }
  return data;
}

/** Parses one stored event (stored JSON is a trust boundary: zod parses it, upcasters lift it). */
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

/** An event read for a replay: the metadata, which projections do not read, is parsed only if it is read. */
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

/** The event columns a read selects: without `bulk` unless the bulk fields are wanted. */
export function eventColumns(withBulkFields: boolean): string {
  const columns = 'global_position, stream_id, stream_position, type, schema_version, data, metadata, recorded_at';
  return withBulkFields ? `${columns}, bulk` : columns;
}
