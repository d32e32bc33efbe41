import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * The event log: the single source of truth, rows only ever inserted. `global_position` orders the whole
 * log; `(stream_id, stream_position)` is contiguous from 1 within a stream. `bulk`, the last column, holds
 * an event's bulk fields (event-codec.ts), never loaded by a reader that does not select it.
 */
export const events = sqliteTable(
  'events',
  {
    globalPosition: integer('global_position').primaryKey({ autoIncrement: true }),
    streamId: text('stream_id').notNull(),
    streamPosition: integer('stream_position').notNull(),
    type: text('type').notNull(),
    schemaVersion: integer('schema_version').notNull(),
    data: text('data').notNull(),
    metadata: text('metadata').notNull(),
    eventId: text('event_id').notNull(),
    recordedAt: text('recorded_at').notNull(),
    bulk: text('bulk'),
  },
  (t) => [
    uniqueIndex('events_stream_id_stream_position_unique').on(t.streamId, t.streamPosition),
    uniqueIndex('events_event_id_unique').on(t.eventId),
    // No index on the type: every commit would write the tail of each type's range, and the reads by type
    // (rebuilds, filtered feeds) go through the log in global order anyway.
    // An account's history pages through its streams in global order: one range of this index per stream.
    index('events_stream_id_global_position_idx').on(t.streamId, t.globalPosition),
  ],
);

/** Secrets the service generates for itself: not events, as auditors read the log. */
export const serviceSecrets = sqliteTable('service_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: text('created_at').notNull(),
});

/** The version each projection's table was last built with: a projection declaring another is rebuilt at start-up. */
export const projectionVersions = sqliteTable('projection_versions', {
  name: text('name').primaryKey(),
  version: integer('version').notNull(),
  /** Global position of the last event the table was rebuilt from (0 when it was only recorded). */
  rebuiltThrough: integer('rebuilt_through').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/** Token buckets shared by every instance on a PostgreSQL database (SQLite keeps them in its one process). */
export const rateLimitBuckets = sqliteTable('rate_limit_buckets', {
  name: text('name').primaryKey(),
  tokens: real('tokens').notNull(),
  /** When `tokens` was last computed (ms since the epoch, the service's clock). */
  updatedAtMs: integer('updated_at_ms').notNull(),
});

/** Sliding windows of call starts shared by every instance on a PostgreSQL database (SQLite keeps them in its one process). */
export const rateLimitWindows = sqliteTable('rate_limit_windows', {
  name: text('name').primaryKey(),
  /** The start times still inside the window (ms since the epoch, the service's clock): a JSON array. */
  startsMs: text('starts_ms').notNull(),
  /** No start before this time (ms since the epoch): an operator's Retry-After. */
  pausedUntilMs: integer('paused_until_ms').notNull(),
});
