import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

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

/**
 * Webhook endpoints' signing secrets (`whsec_` + base64): not events, as auditors read the log, which names
 * only a secret's id. The current secret has no expiry; a rotated one signs beside it until `expires_at`.
 */
export const webhookSecrets = sqliteTable(
  'webhook_secrets',
  {
    endpointId: text('endpoint_id').notNull(),
    secretId: text('secret_id').notNull(),
    secret: text('secret').notNull(),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at'),
  },
  (t) => [primaryKey({ columns: [t.endpointId, t.secretId] })],
);

/**
 * The delivery log: one row per attempt to deliver an external event (`message_id`, at log position
 * `position`) to a webhook endpoint. Operational and high in volume, so not events: kept for the retention
 * (LEDGER_WEBHOOK_ATTEMPT_RETENTION_DAYS) and read newest first, all of an endpoint's or its failed ones.
 */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    endpointId: text('endpoint_id').notNull(),
    messageId: text('message_id').notNull(),
    eventType: text('event_type').notNull(),
    position: integer('position').notNull(),
    /** 1 for the first attempt of this message to this endpoint, then 2, 3, ... */
    attempt: integer('attempt').notNull(),
    /** The receiver's HTTP status; null when none came (refused address, connection error, timeout). */
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
    outcome: text('outcome', { enum: ['delivered', 'failed'] }).notNull(),
    attemptedAt: text('attempted_at').notNull(),
  },
  (t) => [
    index('webhook_attempts_endpoint_idx').on(t.endpointId, t.id),
    index('webhook_attempts_endpoint_outcome_idx').on(t.endpointId, t.outcome, t.id),
    index('webhook_attempts_attempted_at_idx').on(t.attemptedAt),
  ],
);
