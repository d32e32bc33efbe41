import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Where each relay of events out stands (docs/events.md): the NATS relay and each webhook endpoint read the
 * log from `position` (everything up to it is delivered, or parked for retry), and one instance at a time
 * holds a relay by its lease. Not events: a position moves thousands of times a minute.
 */
export const relayCursors = sqliteTable('relay_cursors', {
  name: text('name').primaryKey(),
  position: integer('position').notNull(),
  /** The instance holding the relay, until `lease_expires_at_ms` (the service's clock); null: none. */
  holder: text('holder'),
  leaseExpiresAtMs: integer('lease_expires_at_ms'),
  /** The last replay request applied (an endpoint's count of them): a newer one moves the position back. */
  replaySeq: integer('replay_seq').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/**
 * A webhook endpoint's messages that failed while others were delivered, kept so that its position can move
 * on: the first of an ordering key (an account) waits for its next attempt, the later ones of the key behind
 * it (`next_attempt_at_ms` null). The message itself is read again from the log at its position.
 */
export const webhookRetries = sqliteTable(
  'webhook_retries',
  {
    endpointId: text('endpoint_id').notNull(),
    position: integer('position').notNull(),
    orderingKey: text('ordering_key').notNull(),
    /** Attempts made so far. */
    attempts: integer('attempts').notNull(),
    nextAttemptAtMs: integer('next_attempt_at_ms'),
    firstFailedAtMs: integer('first_failed_at_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.endpointId, t.position] }), index('webhook_retries_key_idx').on(t.endpointId, t.orderingKey, t.position)],
);
