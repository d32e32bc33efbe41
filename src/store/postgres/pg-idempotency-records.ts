import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { StoredLedgerEvent, WriteTransaction } from '../event-store.js';
import { toIdempotencyRecord, type IdempotencyKeyRaw } from '../idempotency-schema.js';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_RETENTION_MS,
  keyInProgress,
  answerRecorder,
  type AnswerRebuilder,
  type ExistingReservation,
  type HeldReservation,
  type IdempotencyRecord,
  type IdempotencyRecords,
  type IdempotentRequest,
  type ReserveOptions,
  type StoredResponse,
} from '../idempotency.js';
import { IDEMPOTENCY_LOCK_CLASS, sqlState, type PgOptions } from './pg-database.js';
import { PgSessionHolder } from './pg-session-holder.js';
import { postgresTransaction } from './pg-write-unit.js';


/** The advisory lock id (within IDEMPOTENCY_LOCK_CLASS) of one key. */
const lockId = (keyId: string, idempotencyKey: string) => createHash('sha256').update(`${keyId}\n${idempotencyKey}`).digest().readInt32BE(0);

/** The SQLSTATE of `ledger_refuse` (migration 0006). */
const REFUSED = 'LG409';

const FIND = 'SELECT * FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2';

/**
 * Idempotency-Key records on PostgreSQL. Which requests are still running is
 * known exactly, across instances: while a request holds its key, its
 * instance holds a session advisory lock for it on a connection kept for that
 * (the holder). If the instance dies, its session ends and its locks go with
 * it, so a reservation whose lock is free was left by a stopped instance and a
 * retry takes it over at once. Within one instance the held keys are tracked
 * in memory as well (a session may take its own lock again). The reservation
 * row, its token (`created_at`) and the check inside the events' unit of work
 * are as on SQLite: a holder that was taken over can write nothing. Every
 * claim is made in the database (`with-writes` too: the advisory lock is what
 * tells a running holder from a stopped one, and it is taken before the
 * request runs); the answer the events rebuild is written with them.
 */
export class PgIdempotencyRecords implements IdempotencyRecords {
  private readonly holder: PgSessionHolder;
  private readonly heldHere = new Set<number>();

  constructor(
    private readonly pool: pg.Pool,
    url: string,
    private readonly clock: () => Date,
    private readonly rebuild: AnswerRebuilder,
    options: PgOptions = {},
  ) {
    // The session's locks died with it: forget what this instance held.
    this.holder = new PgSessionHolder(url, { ...options, role: 'keys' }, () => this.heldHere.clear());
  }

  async find(keyId: string, idempotencyKey: string): Promise<IdempotencyRecord | null> {
    const raw = await this.live(this.pool, keyId, idempotencyKey);
    return raw ? toIdempotencyRecord(raw) : null;
  }

  async reserve(request: IdempotentRequest, options?: ReserveOptions): Promise<HeldReservation | ExistingReservation> {
    // Whatever the claim mode asked for: see the class's comment.
    const lock = lockId(request.keyId, request.idempotencyKey);
    // Someone holds the key's lock: the record as it is, unless it is an empty reservation past its lease
    // (a wedged holder), which is taken over without the lock (the token check still guards its writes).
    const inFlight = async (): Promise<HeldReservation | ExistingReservation> => {
      const raw = await this.live(this.pool, request.keyId, request.idempotencyKey);
      const now = this.clock();
      if (raw && raw.status === null && raw.event_positions === '[]' && Date.parse(raw.created_at) < now.getTime() - IDEMPOTENCY_LEASE_MS) {
        const token = now.toISOString();
        const { rowCount } = await this.pool.query(
          `UPDATE idempotency_keys SET fingerprint = $1, request_path = $2, created_at = $3
            WHERE key_id = $4 AND idempotency_key = $5 AND created_at = $6 AND status IS NULL AND event_positions = '[]'`,
          [request.fingerprint, request.requestPath, token, request.keyId, request.idempotencyKey, raw.created_at],
        );
        if (rowCount === 1) return this.held(request, token, null, options);
      }
      // The holder may not have written its row yet: an empty reservation is what it is about to write.
      const record: IdempotencyRecord = raw ? toIdempotencyRecord(raw) : { ...request, eventPositions: [], response: null, createdAt: now.toISOString() };
      return { held: false, record };
    };
    if (this.heldHere.has(lock)) return inFlight();
    this.heldHere.add(lock);
    let locked = false;
    try {
      locked = (await this.holder.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [IDEMPOTENCY_LOCK_CLASS, lock])).rows[0]!.ok;
      if (!locked) {
        this.heldHere.delete(lock);
        return await inFlight();
      }
      let token = this.clock().toISOString();
      // The claim commits without waiting for its WAL flush (synchronous_commit off for this transaction
      // only): while the request runs, the key is held by the advisory lock, and the row is visible to
      // every session once committed. Losing it in a crash of the database server is harmless (the locks
      // go too, and the request had written nothing yet); the request's events commit later, synchronously,
      // and their flush covers the reservation's commit record, which precedes them in the WAL.
      const claimed = await this.inTransaction(async (client) => {
        const existing = await this.live(client, request.keyId, request.idempotencyKey, true);
        if (!existing) {
          await client.query(
            `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, request_path, event_positions, created_at) VALUES ($1, $2, $3, $4, '[]', $5)`,
            [request.keyId, request.idempotencyKey, request.fingerprint, request.requestPath, token],
          );
          return null;
        }
        // Its lock was free: whoever reserved it stopped (or the lease ran out). Nothing recorded: take it over,
        // under a token later than the old one whatever the clocks say (the old holder's writes must fail its check).
        if (existing.status === null && existing.event_positions === '[]') {
          if (token <= existing.created_at) token = new Date(Date.parse(existing.created_at) + 1).toISOString();
          await client.query(
            'UPDATE idempotency_keys SET fingerprint = $1, request_path = $2, created_at = $3 WHERE key_id = $4 AND idempotency_key = $5',
            [request.fingerprint, request.requestPath, token, request.keyId, request.idempotencyKey],
          );
          return null;
        }
        return toIdempotencyRecord(existing);
      });
      if (claimed) {
        await this.unlock(lock);
        return { held: false, record: claimed };
      }
      return this.held(request, token, lock, options);
    } catch (error) {
      if (locked) await this.unlock(lock).catch(() => undefined);
      else this.heldHere.delete(lock);
      throw error;
    }
  }

  async complete(request: IdempotentRequest, response: StoredResponse): Promise<void> {
    const now = this.clock().toISOString();
    await this.pool.query(
      `INSERT INTO idempotency_keys
         (key_id, idempotency_key, fingerprint, request_path, event_positions, status, response_body, response_content_type, created_at, completed_at)
       VALUES ($1, $2, $3, $4, '[]', $5, $6, $7, $8, $8)
       ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
         status = excluded.status, response_body = excluded.response_body,
         response_content_type = excluded.response_content_type, completed_at = excluded.completed_at
       WHERE idempotency_keys.status IS NULL`,
      [request.keyId, request.idempotencyKey, request.fingerprint, request.requestPath, response.status, response.body, response.contentType, now],
    );
  }

  async purgeExpired(): Promise<number> {
    const before = new Date(this.clock().getTime() - IDEMPOTENCY_RETENTION_MS).toISOString();
    return (await this.pool.query('DELETE FROM idempotency_keys WHERE created_at < $1', [before])).rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.holder.close();
  }

  private held(request: IdempotentRequest, token: string, lock: number | null, options: ReserveOptions | undefined): HeldReservation {
    const { keyId, idempotencyKey } = request;
    const answers = answerRecorder(this.rebuild, request, token, options);
    const beforeCommit = (appended: readonly StoredLedgerEvent[], tx: WriteTransaction) => {
      const { client, defer } = postgresTransaction(tx);
      if (appended.length === 0) return;
      const answer = answers.next(appended);
      // One statement, sent and not awaited (the writer's batch goes out in one flight): the positions
      // appended to the JSON array the row holds, and the answer they rebuild, if the row is still this
      // request's reservation (another request may have taken the key over); if it is not, the statement
      // fails, and the unit with it.
      const setAnswer = answer === undefined ? '' : ', status = $5, response_body = $6, response_content_type = $7';
      const recorded = client.query(
        `WITH recorded AS (
           UPDATE idempotency_keys
              SET event_positions = CASE WHEN event_positions = '[]' THEN '[' || $1 || ']' ELSE left(event_positions, -1) || ',' || $1 || ']' END${setAnswer}
            WHERE key_id = $2 AND idempotency_key = $3 AND created_at = $4 AND completed_at IS NULL
           RETURNING 1)
         SELECT ledger_refuse('idempotency_key_in_progress') WHERE NOT EXISTS (SELECT 1 FROM recorded)`,
        [
          appended.map((stored) => stored.globalPosition).join(','),
          keyId,
          idempotencyKey,
          token,
          ...(answer === undefined ? [] : [answer?.status ?? null, answer?.body ?? null, answer?.contentType ?? null]),
        ],
      );
      defer(recorded.catch((error: unknown) => Promise.reject(sqlState(error) === REFUSED ? keyInProgress() : error)));
    };
    const unlock = async () => {
      if (lock !== null) await this.unlock(lock);
    };
    const complete = async (response: StoredResponse) => {
      try {
        // The first completion wins; it replaces an answer recorded with the events.
        await this.pool.query(
          `UPDATE idempotency_keys SET status = $1, response_body = $2, response_content_type = $3, completed_at = $4
            WHERE key_id = $5 AND idempotency_key = $6 AND created_at = $7 AND completed_at IS NULL`,
          [response.status, response.body, response.contentType, this.clock().toISOString(), keyId, idempotencyKey, token],
        );
      } finally {
        await unlock();
      }
    };
    return {
      held: true,
      reservedAt: token,
      beforeCommit,
      complete,
      recordedAnswer: answers.last,
      keepRecorded: unlock,
      release: async () => {
        try {
          await this.pool.query(
            `DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2 AND created_at = $3 AND status IS NULL AND event_positions = '[]'`,
            [keyId, idempotencyKey, token],
          );
        } finally {
          await unlock();
        }
      },
    };
  }

  /** The key's row unless it is past the retention (then deleted); with `forUpdate`, locked for the caller's transaction. */
  private async live(client: pg.Pool | pg.ClientBase, keyId: string, idempotencyKey: string, forUpdate = false): Promise<IdempotencyKeyRaw | null> {
    const { rows } = await client.query<IdempotencyKeyRaw>(forUpdate ? `${FIND} FOR UPDATE` : FIND, [keyId, idempotencyKey]);
    const raw = rows[0];
    if (!raw) return null;
    const now = this.clock().getTime();
    if (raw.created_at < new Date(now - IDEMPOTENCY_RETENTION_MS).toISOString()) {
      await client.query('DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2 AND created_at = $3', [keyId, idempotencyKey, raw.created_at]);
      return null;
    }
    return raw;
  }

  /** Runs `work` in a transaction whose COMMIT does not wait for the WAL flush (synchronous_commit off for it alone): the claim's. */
  private async inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN; SET LOCAL synchronous_commit = off');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot even roll back is lost: it is not given back to the pool (newPool hears its 'error').
      await client.query('ROLLBACK').catch((lost: unknown) => (broken = lost instanceof Error ? lost : new Error(String(lost))));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private async unlock(lock: number): Promise<void> {
    this.heldHere.delete(lock);
    await this.holder.query('SELECT pg_advisory_unlock($1, $2)', [IDEMPOTENCY_LOCK_CLASS, lock]).catch(() => undefined);
  }
}
