import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { WriteTransaction } from '../event-store.js';
import { claimKey, FIND_KEY, inFlightRecord, isEmpty, KeyRecords, pastLease, recording, takeOverAbandoned, type KeyStatements } from '../idempotency-keys.js';
import type { IdempotencyKeyRaw } from '../idempotency-schema.js';
import {
  keyInProgress,
  type AnswerRebuilder,
  type ExistingReservation,
  type HeldReservation,
  type IdempotentRequest,
  type RecordedAnswer,
  type ReserveOptions,
} from '../idempotency.js';
import { runAwaited, type Procedure } from '../procedure.js';
import { IDEMPOTENCY_LOCK_CLASS, sqlState, type PgOptions } from './pg-database.js';
import { PgSessionHolder } from './pg-session-holder.js';
import { postgresTransaction } from './pg-write-unit.js';

/** The advisory lock id (within IDEMPOTENCY_LOCK_CLASS) of one key. */
const lockId = (request: IdempotentRequest) => createHash('sha256').update(`${request.keyId}\n${request.idempotencyKey}`).digest().readInt32BE(0);

/** The SQLSTATE of `ledger_refuse` (migration 0006). */
const REFUSED = 'LG409';

/** A statement's `?` placeholders numbered as PostgreSQL's ($1, $2, ...), worked out once per text. */
const numberedTexts = new Map<string, string>();
function numbered(sql: string): string {
  let text = numberedTexts.get(sql);
  if (text === undefined) {
    let n = 0;
    numberedTexts.set(sql, (text = sql.replace(/\?/g, () => `$${++n}`)));
  }
  return text;
}

const statementsOn = (client: pg.Pool | pg.ClientBase) =>
  ({
    get: async (sql: string, params: readonly unknown[]) => (await client.query<IdempotencyKeyRaw>(numbered(sql), [...params])).rows[0],
    run: async (sql: string, params: readonly unknown[]) => (await client.query(numbered(sql), [...params])).rowCount ?? 0,
  }) satisfies KeyStatements;

/**
 * Idempotency-Key records on PostgreSQL. While a request holds its key, its instance holds a session
 * advisory lock for it on a connection kept for that (the holder); a stopped instance's session ends with
 * its locks, so a reservation whose lock is free is taken over at once. An instance also tracks its held
 * keys in memory (a session may take its own lock again). Every claim is made in the database before the
 * request runs, `with-writes` too: the lock is what tells a running holder from a stopped one.
 */
export class PgIdempotencyRecords extends KeyRecords {
  protected readonly sql: ReturnType<typeof statementsOn>;
  protected readonly purge = 'DELETE FROM idempotency_keys WHERE created_at < ?';
  private readonly holder: PgSessionHolder;
  private readonly heldHere = new Set<number>();

  constructor(
    private readonly pool: pg.Pool,
    url: string,
    clock: () => Date,
    rebuild: AnswerRebuilder,
    options: PgOptions = {},
  ) {
    super(clock, rebuild);
    this.sql = statementsOn(pool);
    // The session's locks died with it: forget what this instance held.
    this.holder = new PgSessionHolder(url, { ...options, role: 'keys' }, () => this.heldHere.clear());
  }

  protected run<R>(procedure: Procedure<R>): Promise<R> {
    return runAwaited(procedure);
  }

  async reserve(request: IdempotentRequest, options?: ReserveOptions): Promise<HeldReservation | ExistingReservation> {
    const lock = lockId(request);
    if (!(await this.lock(lock))) return this.inFlight(request, options);
    try {
      // Its lock was free: a reservation there was left by a holder that stopped, and is taken over.
      const now = this.clock();
      const claimed = await this.inTransaction((client) => runAwaited(claimKey(statementsOn(client), request, now, isEmpty, `${FIND_KEY} FOR UPDATE`)));
      if ('token' in claimed) return this.hold(request, claimed.token, lock, options);
      await this.unlock(lock);
      return { held: false, record: claimed };
    } catch (error) {
      await this.unlock(lock);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.holder.close();
  }

  /**
   * Someone holds the key's lock: the record as it is (an empty one if the holder has not written its row
   * yet), unless it is an empty reservation past its lease (a wedged holder), which is taken over without
   * the lock (the token check still guards the old holder's writes).
   */
  private async inFlight(request: IdempotentRequest, options: ReserveOptions | undefined): Promise<HeldReservation | ExistingReservation> {
    const now = this.clock();
    const found = await runAwaited(takeOverAbandoned(this.sql, request, now, pastLease));
    if (found && 'token' in found) return this.hold(request, found.token, null, options);
    return { held: false, record: found ?? inFlightRecord(request, now.toISOString()) };
  }

  private hold(request: IdempotentRequest, token: string, lock: number | null, options: ReserveOptions | undefined): HeldReservation {
    const record = (tx: WriteTransaction, positions: readonly number[], answer: RecordedAnswer) => {
      const { client, defer } = postgresTransaction(tx);
      if (positions.length === 0) return;
      // One statement, sent and not awaited (the writer's batch goes out in one flight): if the row is no longer
      // this request's reservation (another request took the key over), it fails, and the unit with it.
      const [update, params] = recording(request, token, positions, answer);
      const refusing = `WITH recorded AS (${update} RETURNING 1)
        SELECT ledger_refuse('idempotency_key_in_progress') WHERE NOT EXISTS (SELECT 1 FROM recorded)`;
      const recorded = client.query(numbered(refusing), params);
      defer(recorded.catch((error: unknown) => Promise.reject(sqlState(error) === REFUSED ? keyInProgress() : error)));
    };
    return this.held(request, token, options, {
      record,
      hasRow: true,
      end: async () => {
        if (lock !== null) await this.unlock(lock);
      },
    });
  }

  /**
   * The claim's transaction, whose COMMIT does not wait for the WAL flush (synchronous_commit off for it
   * alone): the advisory lock holds the key meanwhile, a claim lost in a server crash goes with the locks
   * before the request wrote anything, and the request's events, committed synchronously, flush it with them.
   */
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

  /** Takes the key's lock for this instance: false if a request here, or another instance, holds it. */
  private async lock(lock: number): Promise<boolean> {
    if (this.heldHere.has(lock)) return false;
    this.heldHere.add(lock);
    let locked = false;
    try {
      locked = (await this.holder.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [IDEMPOTENCY_LOCK_CLASS, lock])).rows[0]!.ok;
      return locked;
    } finally {
      if (!locked) this.heldHere.delete(lock);
    }
  }

  private async unlock(lock: number): Promise<void> {
    this.heldHere.delete(lock);
    await this.holder.query('SELECT pg_advisory_unlock($1, $2)', [IDEMPOTENCY_LOCK_CLASS, lock]).catch(() => undefined);
  }
}
