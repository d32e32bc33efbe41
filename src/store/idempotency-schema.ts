import type { IdempotencyRecord } from './idempotency.js';
import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Idempotency-Key records (docs/reliability.md): one row per (API key, idempotency key), first written in
 * the transaction that appends the request's events (`event_positions`), the response written on it once
 * rendered (a request without events gets its row when it completes). Rows past the retention are deleted
 * oldest first by rowid: no index on `created_at`, which would cost every keyed write another B-tree page.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    keyId: text('key_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    requestPath: text('request_path').notNull(),
    /** `IdempotencyRecord.eventPositions` as a JSON array. */
    eventPositions: text('event_positions').notNull(),
    status: integer('status'),
    responseBody: text('response_body'),
    responseContentType: text('response_content_type'),
    createdAt: text('created_at').notNull(),
    completedAt: text('completed_at'),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.idempotencyKey] })],
);

/** A row of `idempotency_keys` as the drivers return it (column names). */
export interface IdempotencyKeyRaw {
  key_id: string;
  idempotency_key: string;
  fingerprint: string;
  request_path: string;
  event_positions: string;
  status: number | null;
  response_body: string | null;
  response_content_type: string | null;
  created_at: string;
}

/** A stored row as the port's record. */
export const toIdempotencyRecord = (raw: IdempotencyKeyRaw): IdempotencyRecord => ({
  keyId: raw.key_id,
  idempotencyKey: raw.idempotency_key,
  fingerprint: raw.fingerprint,
  requestPath: raw.request_path,
  eventPositions: JSON.parse(raw.event_positions) as number[],
  response: raw.status === null ? null : { status: raw.status, body: raw.response_body ?? '', contentType: raw.response_content_type },
  createdAt: raw.created_at,
});
