import type Database from 'better-sqlite3';
import type { WriteTransaction } from '../event-store.js';
import { answerColumns, claimKey, claimSlot, expired, FIND_KEY, inFlightRecord, isEmpty, KeyRecords, laterToken, pastLease, PURGE_WINDOW, recording, type KeyStatements } from '../idempotency-keys.js';
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
import { runNow, type Procedure } from '../procedure.js';
import type { GroupCommitRunner } from './group-commit.js';
import { sqliteTransaction } from './sqlite-event-store.js';

/**
 * Idempotency-Key records on SQLite. Claims and completions go through the connection's group-commit
 * runner like the events, so a check-and-claim is one atomic unit for every process on the file. A claim
 * is answered once its batch is committed, not synced (`runCommitted`): committed, it is visible to every
 * connection, which is all it needs; lost in a power cut, it leaves a key nobody holds, whose retry runs
 * the request, which had written nothing (its events come in a later batch, whose sync covers the claim).
 *
 * A key claimed `with-writes` has no row while its request runs: the claim is held in this process
 * (`claims`), and the unit of work of the request's first events inserts the row, positions and answer
 * included, unless a request of another process got the key first (its row is there: the unit fails with
 * `idempotency_key_in_progress`). Such a keyed write commits once, with its events.
 */
export class SqliteIdempotencyRecords extends KeyRecords {
  /** When this process opened the database: a reservation older than that was made by a process that has stopped. */
  private readonly openedAt: string;
  /** Keys held `with-writes` by requests of this process: their token and when it was taken (ms). */
  private readonly claims = new Map<string, { readonly token: string; readonly at: number }>();
  private readonly statements = new Map<string, Database.Statement>();
  protected readonly sql = {
    get: (sql: string, params: readonly unknown[]) => this.prepared(sql).get(...params) as IdempotencyKeyRaw | undefined,
    run: (sql: string, params: readonly unknown[]) => this.prepared(sql).run(...params).changes,
  } satisfies KeyStatements;
  /**
   * The expired rows among the oldest `PURGE_WINDOW` (rowid order: the order rows are written in), so each
   * purge reads that many rows, not the table. A row whose key was taken over later only waits for the rows
   * before it; `find` ignores an expired row whether or not it was purged yet.
   */
  protected readonly purge = `DELETE FROM idempotency_keys
    WHERE rowid IN (SELECT rowid FROM idempotency_keys ORDER BY rowid LIMIT ${PURGE_WINDOW}) AND created_at < ?`;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly runner: GroupCommitRunner,
    clock: () => Date,
    rebuild: AnswerRebuilder,
  ) {
    super(clock, rebuild);
    this.openedAt = clock().toISOString();
  }

  protected async run<R>(procedure: Procedure<R>): Promise<R> {
    return runNow(procedure);
  }

  protected override write<R>(procedure: Procedure<R>): Promise<R> {
    return this.runner.run(() => runNow(procedure));
  }

  /**
   * A key a request of this process holds `with-writes` (within the lease) is answered with its record, or
   * what the request is about to write. For a claim `with-writes`, the row as it is read now decides only
   * whether the request runs (a live one is answered from, an expired one left for the purge); the events'
   * unit of work checks again, atomically.
   */
  async reserve(request: IdempotentRequest, options?: ReserveOptions): Promise<HeldReservation | ExistingReservation> {
    const slot = claimSlot(request);
    const now = this.clock();
    const mine = this.claims.get(slot);
    const heldHere = mine !== undefined && mine.at >= now.getTime() - IDEMPOTENCY_LEASE_MS;
    if (!heldHere && options?.claim !== 'with-writes') {
      const claimed = await this.runner.runCommitted(() => runNow(claimKey(this.sql, request, this.clock(), this.abandoned)));
      return 'token' in claimed ? this.hold(request, claimed.token, false, options) : { held: false, record: claimed };
    }
    const raw = this.sql.get(FIND_KEY, [request.keyId, request.idempotencyKey]);
    const existing = raw && !expired(raw, now) ? raw : null;
    if (heldHere) return { held: false, record: existing ? toIdempotencyRecord(existing) : inFlightRecord(request, mine.token) };
    if (existing && !this.abandoned(existing, now)) return { held: false, record: toIdempotencyRecord(existing) };
    // Later than anything this key held before, whatever the clock says: an old holder's writes must fail its check.
    let token = now.toISOString();
    if (mine) token = laterToken(token, mine.token);
    if (existing) token = laterToken(token, existing.created_at);
    this.claims.set(slot, { token, at: now.getTime() });
    return this.hold(request, token, true, options);
  }

  /**
   * Nothing recorded, and its holder gone: a reservation made before this process opened the file was left
   * by a process that stopped, so the client's retry runs at once; past the lease, any reservation is taken
   * over. Should the holder still write, its unit of work finds the key is no longer its own and fails.
   */
  private readonly abandoned = (raw: IdempotencyKeyRaw, now: Date): boolean =>
    (isEmpty(raw) && raw.created_at < this.openedAt) || pastLease(raw, now);

  private hold(request: IdempotentRequest, token: string, withWrites: boolean, options: ReserveOptions | undefined): HeldReservation {
    const slot = claimSlot(request);
    return this.held(request, token, options, {
      record: this.recorder(request, token, withWrites),
      // A key claimed with its writes has no row unless events were recorded with it: nothing to give back.
      hasRow: !withWrites,
      end: () => {
        if (withWrites && this.claims.get(slot)?.token === token) this.claims.delete(slot);
      },
    });
  }

  /** The hold's `record`: the positions and answer of its events written on its row, if the row is still its own. */
  private recorder(request: IdempotentRequest, token: string, withWrites: boolean) {
    const { keyId, idempotencyKey, fingerprint, requestPath } = request;
    // Whether the row is this request's: a store claim's from the start; a claim with its writes' once its first
    // events inserted it (not told by the token alone: two processes may claim a key in the same millisecond).
    let rowWritten = !withWrites;
    return (tx: WriteTransaction, appended: readonly number[], answer: RecordedAnswer): void => {
      sqliteTransaction(tx);
      if (appended.length === 0) return;
      if (rowWritten) {
        // Another request may have taken the key over past the lease: then the token differs.
        if (this.sql.run(...recording(request, token, appended, answer)) === 0) throw keyInProgress();
        return;
      }
      // The first events of a key claimed with its writes: its row, with them and their answer, unless another request
      // holds the key (another process's, or one that took it over here past the lease); an expired or abandoned row is replaced.
      if (this.claims.get(claimSlot(request))?.token !== token) throw keyInProgress();
      const row = [keyId, idempotencyKey, fingerprint, requestPath, JSON.stringify(appended), ...answerColumns(answer), token];
      const insert = () => this.sql.run(INSERT_WITH_EVENTS, row) === 1;
      if (!insert()) {
        const raw = this.sql.get(FIND_KEY, [keyId, idempotencyKey]);
        if (raw && !expired(raw, this.clock()) && !this.abandoned(raw, this.clock())) throw keyInProgress();
        if (raw) this.sql.run('DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?', [keyId, idempotencyKey]);
        if (!insert()) throw keyInProgress();
      }
      rowWritten = true;
    };
  }

  private prepared(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.sqlite.prepare(sql)));
    return statement;
  }
}

/** The first events of a key claimed `with-writes`: its row, with them and their answer. */
const INSERT_WITH_EVENTS = `INSERT OR IGNORE INTO idempotency_keys
    (key_id, idempotency_key, fingerprint, request_path, event_positions, status, response_body, response_content_type, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
