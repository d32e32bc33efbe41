/** How many days delivery attempts are kept unless LEDGER_WEBHOOK_ATTEMPT_RETENTION_DAYS says otherwise. */
export const DEFAULT_WEBHOOK_ATTEMPT_RETENTION_DAYS = 7;

/** How long a rotated secret keeps signing beside the new one, unless the caller says otherwise. */
export const DEFAULT_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Webhook endpoints' signing secrets (a port; table `webhook_secrets`): kept outside the event log, which
 * auditors read and which names only a secret's id. Times are the service clock's.
 */
export interface WebhookSecrets {
  /** Keeps `secret` as the endpoint's current secret (a new endpoint's first). */
  add(endpointId: string, secretId: string, secret: string, now: Date): Promise<void>;
  /**
   * Makes `newSecret` the current secret; the one current until now keeps signing until `now + overlapMs`
   * (24 hours by default). Secrets already expired are forgotten. One transaction.
   */
  rotate(endpointId: string, newSecretId: string, newSecret: string, now: Date, overlapMs?: number): Promise<void>;
  /** What a delivery is signed with at `now`: the current secret first, then the rotated ones not yet expired, newest first. */
  signingSecrets(endpointId: string, now: Date): Promise<string[]>;
  /** Forgets every secret of a removed endpoint. */
  remove(endpointId: string): Promise<void>;
}

/** One attempt to deliver an external event to an endpoint, as the delivery engine records it. */
export interface AttemptRow {
  readonly endpointId: string;
  /** The external event's id: the `webhook-id` of every attempt (and replay) of it to this endpoint. */
  readonly messageId: string;
  readonly eventType: string;
  /** The event's position in the log. */
  readonly position: number;
  /** 1 for the first attempt of this message to this endpoint, then 2, 3, ... */
  readonly attempt: number;
  /** The receiver's HTTP status; null when none came (refused address, connection error, timeout). */
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly outcome: 'delivered' | 'failed';
  /** ISO 8601, the service clock's. */
  readonly attemptedAt: string;
}

/** A recorded attempt: its row and the id it was recorded under (ids grow in the order attempts are recorded). */
export interface StoredAttempt extends AttemptRow {
  readonly id: number;
}

export interface AttemptListOptions {
  /** Only the failed attempts. */
  readonly failedOnly: boolean;
  /** Only attempts recorded before this id (the last id of the previous page). */
  readonly before?: number;
  readonly limit: number;
}

/** The delivery log (a port; table `webhook_attempts`): operational, high in volume, kept for a retention, not events. */
export interface WebhookAttempts {
  /** Records a batch of attempts in one transaction (multi-row inserts). */
  record(rows: readonly AttemptRow[]): Promise<void>;
  /** One endpoint's attempts, newest first. */
  list(endpointId: string, options: AttemptListOptions): Promise<StoredAttempt[]>;
  /** Deletes the attempts made before `olderThan`, in bounded chunks; resolves to how many. */
  purge(olderThan: Date): Promise<number>;
}

/** Rows a multi-row insert carries (10 parameters each: well under either database's limit on parameters). */
export const ATTEMPT_INSERT_CHUNK = 500;
/** Rows one purge statement deletes: a statement that holds the writers' lock only briefly. */
export const ATTEMPT_PURGE_CHUNK = 5_000;

export const ATTEMPT_COLUMNS =
  'endpoint_id, message_id, event_type, position, attempt, status_code, duration_ms, error, outcome, attempted_at';

/** A row's parameters in ATTEMPT_COLUMNS order. */
export const attemptParams = (row: AttemptRow): unknown[] => [
  row.endpointId,
  row.messageId,
  row.eventType,
  row.position,
  row.attempt,
  row.statusCode,
  row.durationMs,
  row.error,
  row.outcome,
  row.attemptedAt,
];

/** A stored row as the drivers return it (column names; PostgreSQL's bigint already a number). */
export interface AttemptRaw {
  id: number;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  position: number;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  outcome: 'delivered' | 'failed';
  attempted_at: string;
}

export const toStoredAttempt = (raw: AttemptRaw): StoredAttempt => ({
  id: Number(raw.id),
  endpointId: raw.endpoint_id,
  messageId: raw.message_id,
  eventType: raw.event_type,
  position: Number(raw.position),
  attempt: Number(raw.attempt),
  statusCode: raw.status_code === null ? null : Number(raw.status_code),
  durationMs: Number(raw.duration_ms),
  error: raw.error,
  outcome: raw.outcome,
  attemptedAt: raw.attempted_at,
});

/** Splits `rows` into the chunks one insert statement carries. */
export function insertChunks<T>(rows: readonly T[], size = ATTEMPT_INSERT_CHUNK): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += size) chunks.push(rows.slice(i, i + size));
  return chunks;
}

/** How often `record` also purges: on its first batch (a restarted service purges soon), then every this many. */
export const PURGE_EVERY_BATCHES = 100;

/**
 * The delivery log with its retention kept: every PURGE_EVERY_BATCHES-th `record` (the first one included)
 * also deletes the attempts older than `retentionMs`, so the table stays bounded by what the service
 * delivers in the retention, without a loop of its own.
 */
export function withAttemptRetention(attempts: WebhookAttempts, clock: () => Date, retentionMs: number): WebhookAttempts {
  let batches = 0;
  return {
    list: (endpointId, options) => attempts.list(endpointId, options),
    purge: (olderThan) => attempts.purge(olderThan),
    async record(rows) {
      await attempts.record(rows);
      if (batches++ % PURGE_EVERY_BATCHES === 0) await attempts.purge(new Date(clock().getTime() - retentionMs));
    },
  };
}
