import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { WriteTransaction } from '../event-store.js';
import {
  answerColumns,
  claimKey,
  claimSlot,
  expired,
  FIND_KEY,
  inFlightRecord,
  isEmpty,
  KeyRecords,
  laterToken,
  pastLease,
  PURGE_WINDOW,
  recording,
  retentionCutoff,
  takeOverAbandoned,
  type KeyStatements,
} from '../idempotency-keys.js';
import { toIdempotencyRecord, type IdempotencyKeyRaw } from '../idempotency-schema.js';
import {
  IDEMPOTENCY_LEASE_MS,
  keyInProgress,
  type AnswerRebuilder,
  type ExistingReservation,
  type HeldReservation,
  type IdempotentRequest,
  type RecordedAnswer,
  type ReserveOptions,
} from '../idempotency.js';
import { runAwaited, type Procedure } from '../procedure.js';
import { IDEMPOTENCY_LOCK_CLASS, sqlState, statementName, type PgOptions } from './pg-database.js';
import { PgSessionHolder } from './pg-session-holder.js';
import { postgresTransaction } from './pg-write-unit.js';

/** The advisory lock id (within IDEMPOTENCY_LOCK_CLASS) of one key. */
const lockId = (request: IdempotentRequest) => createHash('sha256').update(`${request.keyId}\n${request.idempotencyKey}`).digest().readInt32BE(0);

/** The SQLSTATE of `ledger_refuse` (migration 0006). */
const REFUSED = 'LG409';

/** The statement of `sql` (its `?` placeholders numbered as PostgreSQL's: $1, $2, ...), worked out once per text. */
const statementsByText = new Map<string, { text: string; name: string }>();

/** `sql` with `params`, prepared under its text's name: parsed once per connection, not at every execution. */
function prepared(sql: string, params: readonly unknown[]): pg.QueryConfig {
  let statement = statementsByText.get(sql);
  if (statement === undefined) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    statementsByText.set(sql, (statement = { text, name: statementName(text) }));
  }
  return { ...statement, values: [...params] };
}

const statementsOn = (client: pg.Pool | pg.ClientBase) =>
  ({
    get: async (sql: string, params: readonly unknown[]) => (await client.query<IdempotencyKeyRaw>(prepared(sql, params))).rows[0],
    run: async (sql: string, params: readonly unknown[]) => (await client.query(prepared(sql, params))).rowCount ?? 0,
  }) satisfies KeyStatements;

/**
 * The oldest `PURGE_WINDOW` expired rows, found on the created_at index: ORDER BY with LIMIT keeps
 * PostgreSQL on it whatever its statistics say, where a bare `created_at < ?` can be planned as a scan of
 * every key (millions at a million accounts, every 100 requests). A row whose key was taken over meanwhile
 * (a newer created_at, a new ctid) is not the one its ctid names any more, and stays.
 */
export const PURGE_EXPIRED = `DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(
  SELECT ctid FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ${PURGE_WINDOW}))`;

/**
 * Idempotency-Key records on PostgreSQL. A key claimed `store` is claimed in the database before its
 * request runs: while the request holds it, its instance holds a session advisory lock for it on a
 * connection kept for that (the holder); a stopped instance's session ends with its locks, so a reservation
 * whose lock is free is taken over at once. An instance also tracks its held keys in memory (a session may
 * take its own lock again).
 *
 * A key claimed `with-writes` has no row while its request runs, as on SQLite: the claim is held in this
 * instance (`claims`), and the statement that records the request's first events inserts the row, in their
 * transaction, unless another request has it (another instance's: PostgreSQL's unique index makes the
 * later transaction wait for the earlier one, then refuses it, failing its unit with
 * `idempotency_key_in_progress`). Such a keyed write costs one read of the key and one statement in its
 * events' flight, no transaction of its own and no lock; a holder that stopped leaves no row, or one with
 * its events, so a retry elsewhere never waits for it.
 */
export class PgIdempotencyRecords extends KeyRecords {
  protected readonly sql: ReturnType<typeof statementsOn>;
  protected readonly purge = PURGE_EXPIRED;
  private readonly holder: PgSessionHolder;
  private readonly heldHere = new Set<number>();
  /** Keys held `with-writes` by requests of this instance: their token and when it was taken (ms). */
  private readonly claims = new Map<string, { readonly token: string; readonly at: number }>();

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
    const mine = this.claimedHere(request);
    if (mine) {
      const raw = await this.liveRaw(request);
      return { held: false, record: raw ? toIdempotencyRecord(raw) : inFlightRecord(request, mine.token) };
    }
    if (options?.claim === 'with-writes') return this.claimWithWrites(request, options);
    return this.claimInStore(request, options);
  }

  async close(): Promise<void> {
    await this.holder.close();
  }

  /** This instance's claim `with-writes` of the key, unless past the lease. */
  private claimedHere(request: IdempotentRequest): { readonly token: string } | undefined {
    const mine = this.claims.get(claimSlot(request));
    return mine && mine.at >= this.clock().getTime() - IDEMPOTENCY_LEASE_MS ? mine : undefined;
  }

  /** The key's row unless it is past the retention (left for the purge, or replaced by the key's next first events). */
  private async liveRaw(request: IdempotentRequest): Promise<IdempotencyKeyRaw | undefined> {
    const raw = await this.sql.get(FIND_KEY, [request.keyId, request.idempotencyKey]);
    return raw && !expired(raw, this.clock()) ? raw : undefined;
  }

  /**
   * Claimed in this instance first (so that a second request here waits for no read), then the key's row
   * read: a live record is answered from; an empty reservation (a `store` claim) is left to the lock that
   * tells whether its holder runs.
   */
  private async claimWithWrites(request: IdempotentRequest, options: ReserveOptions): Promise<HeldReservation | ExistingReservation> {
    const slot = claimSlot(request);
    const now = this.clock();
    const previous = this.claims.get(slot);
    // Later than anything this key held here before, whatever the clock says: an old holder's writes must fail its check.
    const token = previous ? laterToken(now.toISOString(), previous.token) : now.toISOString();
    const claim = { token, at: now.getTime() };
    this.claims.set(slot, claim);
    const drop = () => {
      if (this.claims.get(slot) === claim) this.claims.delete(slot);
    };
    let raw: IdempotencyKeyRaw | undefined;
    try {
      raw = await this.liveRaw(request);
    } catch (error) {
      drop();
      throw error;
    }
    if (raw) {
      drop();
      return isEmpty(raw) ? this.claimInStore(request, options) : { held: false, record: toIdempotencyRecord(raw) };
    }
    return this.held(request, token, options, {
      record: this.firstEventsRecorder(request, token),
      // Nothing is written for the key unless events were recorded with it: nothing to give back.
      hasRow: false,
      end: drop,
    });
  }

  /**
   * The hold's `record` for a key claimed `with-writes`: its first events insert its row (replacing one past
   * the retention, or an empty reservation past its lease), later ones are recorded on it; each statement
   * refuses the unit if the key is not, or no longer, this request's.
   */
  private firstEventsRecorder(request: IdempotentRequest, token: string) {
    // Set once a unit that wrote the row committed: a unit rolled back (its batch redone unit by unit) inserts it again.
    let rowWritten = false;
    return (tx: WriteTransaction, positions: readonly number[], answer: RecordedAnswer) => {
      const { client, defer, afterCommit } = postgresTransaction(tx);
      if (positions.length === 0) return;
      if (rowWritten) {
        deferRefusing(client, defer, ...recording(request, token, positions, answer));
        return;
      }
      if (this.claims.get(claimSlot(request))?.token !== token) throw keyInProgress();
      const now = this.clock();
      const { keyId, idempotencyKey, fingerprint, requestPath } = request;
      const params = [keyId, idempotencyKey, fingerprint, requestPath, JSON.stringify(positions), ...answerColumns(answer), token];
      deferRefusing(client, defer, INSERT_WITH_EVENTS, [...params, retentionCutoff(now), new Date(now.getTime() - IDEMPOTENCY_LEASE_MS).toISOString()]);
      afterCommit(() => (rowWritten = true));
    };
  }

  private async claimInStore(request: IdempotentRequest, options: ReserveOptions | undefined): Promise<HeldReservation | ExistingReservation> {
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
      deferRefusing(client, defer, ...recording(request, token, positions, answer));
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

/**
 * Sends `write` (an INSERT or UPDATE of the key's row) in the unit's flight, not awaited: if it changes no
 * row (the key is not, or no longer, the request's), it fails, and the unit with it.
 */
function deferRefusing(client: pg.ClientBase, defer: (statement: Promise<unknown>) => void, write: string, params: readonly unknown[]): void {
  const refusing = `WITH written AS (${write} RETURNING 1)
    SELECT ledger_refuse('idempotency_key_in_progress') WHERE NOT EXISTS (SELECT 1 FROM written)`;
  const written = client.query(prepared(refusing, params));
  defer(written.catch((error: unknown) => Promise.reject(sqlState(error) === REFUSED ? keyInProgress() : error)));
}

/**
 * The first events of a key claimed `with-writes`: its row, with them and their answer, in their
 * transaction; a row there is replaced only if past the retention (the first `?` after the values) or an
 * empty reservation made before the lease's start (the second).
 */
const INSERT_WITH_EVENTS = `INSERT INTO idempotency_keys
    (key_id, idempotency_key, fingerprint, request_path, event_positions, status, response_body, response_content_type, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
    fingerprint = excluded.fingerprint, request_path = excluded.request_path, event_positions = excluded.event_positions,
    status = excluded.status, response_body = excluded.response_body, response_content_type = excluded.response_content_type,
    created_at = excluded.created_at, completed_at = NULL
  WHERE idempotency_keys.created_at < ?
     OR (idempotency_keys.status IS NULL AND idempotency_keys.event_positions = '[]' AND idempotency_keys.created_at < ?)`;
