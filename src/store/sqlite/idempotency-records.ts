import type Database from 'better-sqlite3';
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
import type { GroupCommitRunner } from './group-commit.js';
import { sqliteTransaction } from './sqlite-event-store.js';


/**
 * The `idempotency_keys` table. A reservation is a row with neither events
 * nor a response; its `created_at` (the instant it was taken) identifies it
 * while it is held, so the events' unit of work and the completion only write
 * on the row if it is still the reservation they took. Reservations go
 * through the connection's group-commit runner like the events, so the
 * check-and-claim is one atomic unit for every process on the file.
 *
 * A reservation is answered once its batch is committed, not once the WAL is
 * synced (`runCommitted`): committed, it is visible to every connection on the
 * file, which is all the claim needs. Its loss in a power cut is harmless (a
 * key nobody holds, so the retry runs the request, which had written nothing:
 * the request's events come in a later batch, whose sync covers the
 * reservation's frames too).
 *
 * A key claimed `with-writes` has no row while its request runs: the claim is
 * held in this process (`claims`), and the unit of work of the request's first
 * events inserts the row, positions and answer included, unless a request of
 * another process on the file got the key first (its row is there: the unit
 * fails with `idempotency_key_in_progress`). So such a keyed write commits
 * once, with its events, where a reservation and a completion each cost a
 * batch and its pages (bench "migrate 2,000 accounts": the key store's writes).
 */
export class SqliteIdempotencyRecords implements IdempotencyRecords {
  private readonly statements;
  /** When this process opened the database: a reservation older than that was made by a process that has stopped. */
  private readonly openedAt: string;
  /** Keys held `with-writes` by requests of this process: their token and when it was taken (ms). */
  private readonly claims = new Map<string, { readonly token: string; readonly at: number }>();

  constructor(
    sqlite: Database.Database,
    private readonly runner: GroupCommitRunner,
    private readonly clock: () => Date,
    private readonly rebuild: AnswerRebuilder,
  ) {
    this.openedAt = clock().toISOString();
    this.statements = {
      find: sqlite.prepare<[string, string], IdempotencyKeyRaw>('SELECT * FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?'),
      forget: sqlite.prepare<[string, string]>('DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?'),
      reserve: sqlite.prepare<[string, string, string, string, string]>(
        `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, request_path, event_positions, created_at)
         VALUES (?, ?, ?, ?, '[]', ?)`,
      ),
      takeOver: sqlite.prepare<[string, string, string, string, string, string]>(
        `UPDATE idempotency_keys SET fingerprint = ?, request_path = ?, created_at = ?
          WHERE key_id = ? AND idempotency_key = ? AND created_at = ? AND status IS NULL AND event_positions = '[]'`,
      ),
      /** The first events of a key claimed `with-writes`: its row, with them and their answer. */
      insertWithEvents: sqlite.prepare<[string, string, string, string, string, number | null, string | null, string | null, string]>(
        `INSERT OR IGNORE INTO idempotency_keys (key_id, idempotency_key, fingerprint, request_path, event_positions, status, response_body, response_content_type, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      record: sqlite.prepare<[string, string, string, string]>(
        `UPDATE idempotency_keys SET event_positions = (SELECT json_group_array(value) FROM (
            SELECT value FROM json_each(idempotency_keys.event_positions) UNION ALL SELECT value FROM json_each(?)))
          WHERE key_id = ? AND idempotency_key = ? AND created_at = ? AND completed_at IS NULL`,
      ),
      recordAnswer: sqlite.prepare<[number | null, string | null, string | null, string, string, string]>(
        `UPDATE idempotency_keys SET status = ?, response_body = ?, response_content_type = ?
          WHERE key_id = ? AND idempotency_key = ? AND created_at = ? AND completed_at IS NULL`,
      ),
      /** The holder's completion: on its row if it still holds it (the first completion wins), or a new row. */
      completeHeld: sqlite.prepare<CompleteParams>(completeSql('idempotency_keys.created_at = excluded.created_at AND idempotency_keys.completed_at IS NULL')),
      /** A response rebuilt for a record nobody completed: the first one stored wins. */
      completeAny: sqlite.prepare<CompleteParams>(completeSql('idempotency_keys.status IS NULL')),
      release: sqlite.prepare<[string, string, string]>(
        `DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ? AND created_at = ? AND status IS NULL AND event_positions = '[]'`,
      ),
      /**
       * The expired rows among the oldest `PURGE_WINDOW` (rowid order: the order rows are written in, so the
       * oldest `created_at` first), without an index on `created_at`: each purge reads that many rows, not the
       * table. A row whose key was taken over later (a newer `created_at` on an old row) only waits for the
       * rows before it; `live` ignores an expired row whether or not it was purged yet.
       */
      purge: sqlite.prepare<[number, string]>(
        'DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys ORDER BY rowid LIMIT ?) AND created_at < ?',
      ),
    };
  }

  async find(keyId: string, idempotencyKey: string): Promise<IdempotencyRecord | null> {
    const raw = this.live(keyId, idempotencyKey);
    return raw ? toIdempotencyRecord(raw) : null;
  }

  async reserve(request: IdempotentRequest, options?: ReserveOptions): Promise<HeldReservation | ExistingReservation> {
    if (options?.claim === 'with-writes') return this.claimWithWrites(request, options);
    const inFlight = this.heldWithWrites(request);
    if (inFlight) return inFlight;
    const taken = await this.runner.runCommitted((): { held: true; token: string } | ExistingReservation => {
      const now = this.clock();
      const token = now.toISOString();
      const existing = this.live(request.keyId, request.idempotencyKey);
      if (!existing) {
        this.statements.reserve.run(request.keyId, request.idempotencyKey, request.fingerprint, request.requestPath, token);
        return { held: true, token };
      }
      if (this.abandoned(existing, now)) {
        const later = laterToken(token, existing.created_at);
        this.statements.takeOver.run(request.fingerprint, request.requestPath, later, request.keyId, request.idempotencyKey, existing.created_at);
        return { held: true, token: later };
      }
      return { held: false, record: toIdempotencyRecord(existing) };
    });
    return taken.held ? this.held(request, taken.token, false, options) : taken;
  }

  async complete(request: IdempotentRequest, response: StoredResponse): Promise<void> {
    const now = this.clock().toISOString();
    await this.runner.run(() =>
      this.statements.completeAny.run(
        request.keyId,
        request.idempotencyKey,
        request.fingerprint,
        request.requestPath,
        response.status,
        response.body,
        response.contentType,
        now,
        now,
      ),
    );
  }

  async purgeExpired(): Promise<number> {
    const before = new Date(this.clock().getTime() - IDEMPOTENCY_RETENTION_MS).toISOString();
    return this.runner.run(() => this.statements.purge.run(PURGE_WINDOW, before).changes);
  }

  /** The key's row unless it is past the retention, in which case it is deleted. */
  private live(keyId: string, idempotencyKey: string): IdempotencyKeyRaw | null {
    const raw = this.statements.find.get(keyId, idempotencyKey);
    if (!raw) return null;
    if (this.expired(raw)) {
      this.statements.forget.run(keyId, idempotencyKey);
      return null;
    }
    return raw;
  }

  private expired(raw: IdempotencyKeyRaw): boolean {
    return raw.created_at < new Date(this.clock().getTime() - IDEMPOTENCY_RETENTION_MS).toISOString();
  }

  /**
   * Nothing recorded, and its holder gone: a reservation made before this process opened the file was left
   * by a process that stopped (a crash), so the client's retry runs at once; past the lease, any reservation
   * is taken over. Either way, should the holder still write, its unit of work finds the key is no longer
   * its own and fails.
   */
  private abandoned(raw: IdempotencyKeyRaw, now: Date): boolean {
    return (
      raw.status === null &&
      raw.event_positions === '[]' &&
      (raw.created_at < this.openedAt || Date.parse(raw.created_at) < now.getTime() - IDEMPOTENCY_LEASE_MS)
    );
  }

  /**
   * A claim held in this process until the request's first events write the row: the row as it is read
   * now decides only whether the request runs (a live one is answered from); the events' unit of work
   * checks again, atomically, and fails if a request of another process wrote the row meanwhile.
   */
  private claimWithWrites(request: IdempotentRequest, options: ReserveOptions): HeldReservation | ExistingReservation {
    const inFlight = this.heldWithWrites(request);
    if (inFlight) return inFlight;
    const slot = claimSlot(request.keyId, request.idempotencyKey);
    const now = this.clock();
    const mine = this.claims.get(slot);
    const raw = this.statements.find.get(request.keyId, request.idempotencyKey);
    const existing = raw && !this.expired(raw) ? raw : null;
    if (existing && !this.abandoned(existing, now)) return { held: false, record: toIdempotencyRecord(existing) };
    // Later than anything this key held before, whatever the clock says: an old holder's writes must fail its check.
    let token = now.toISOString();
    if (mine) token = laterToken(token, mine.token);
    if (existing) token = laterToken(token, existing.created_at);
    this.claims.set(slot, { token, at: now.getTime() });
    return this.held(request, token, true, options);
  }

  /** A request of this process holds the key with its writes (within the lease): the record, or what it is about to write. */
  private heldWithWrites(request: IdempotentRequest): ExistingReservation | null {
    const mine = this.claims.get(claimSlot(request.keyId, request.idempotencyKey));
    if (!mine || mine.at < this.clock().getTime() - IDEMPOTENCY_LEASE_MS) return null;
    const raw = this.statements.find.get(request.keyId, request.idempotencyKey);
    const existing = raw && !this.expired(raw) ? raw : null;
    return { held: false, record: existing ? toIdempotencyRecord(existing) : { ...request, eventPositions: [], response: null, createdAt: mine.token } };
  }

  private held(request: IdempotentRequest, token: string, withWrites: boolean, options: ReserveOptions | undefined): HeldReservation {
    const { keyId, idempotencyKey } = request;
    const answers = answerRecorder(this.rebuild, request, token, options);
    const slot = claimSlot(keyId, idempotencyKey);
    const unclaim = () => {
      if (withWrites && this.claims.get(slot)?.token === token) this.claims.delete(slot);
    };
    const lost = () => keyInProgress();
    /**
     * Whether the row is this request's: a store claim's from the start; a claim with its writes' once its
     * first events inserted it (not told by the token alone: two processes may claim a key in the same
     * millisecond).
     */
    let rowWritten = !withWrites;
    const beforeCommit = (appended: readonly StoredLedgerEvent[], tx: WriteTransaction): void => {
      sqliteTransaction(tx);
      if (appended.length === 0) return;
      const answer = answers.next(appended);
      const positions = JSON.stringify(appended.map((stored) => stored.globalPosition));
      if (!rowWritten) {
        // The first events of a key claimed with its writes: its row, with them and their answer, unless another
        // request holds the key (another process's, or one that took it over here past the lease); an expired or
        // abandoned row is replaced.
        if (this.claims.get(slot)?.token !== token) throw lost();
        const stored = answer ?? null;
        const insert = () =>
          this.statements.insertWithEvents.run(keyId, idempotencyKey, request.fingerprint, request.requestPath, positions, stored?.status ?? null, stored?.body ?? null, stored?.contentType ?? null, token)
            .changes === 1;
        if (!insert()) {
          const raw = this.statements.find.get(keyId, idempotencyKey);
          if (raw && !this.expired(raw) && !this.abandoned(raw, this.clock())) throw lost();
          if (raw) this.statements.forget.run(keyId, idempotencyKey);
          if (!insert()) throw lost();
        }
        rowWritten = true;
        return;
      }
      // Still this request's row? Another request may have taken the key over past the lease (then the token differs, above).
      if (this.statements.record.run(positions, keyId, idempotencyKey, token).changes === 0) throw lost();
      if (answer !== undefined) this.statements.recordAnswer.run(answer?.status ?? null, answer?.body ?? null, answer?.contentType ?? null, keyId, idempotencyKey, token);
    };
    const complete = async (response: StoredResponse) => {
      try {
        const now = this.clock().toISOString();
        await this.runner.run(() =>
          this.statements.completeHeld.run(keyId, idempotencyKey, request.fingerprint, request.requestPath, response.status, response.body, response.contentType, token, now),
        );
      } finally {
        unclaim();
      }
    };
    return {
      held: true,
      reservedAt: token,
      beforeCommit,
      complete,
      recordedAnswer: answers.last,
      keepRecorded: async () => unclaim(),
      release: async () => {
        try {
          // A key claimed with its writes has no row unless events were recorded with it: nothing to give back.
          if (!withWrites) await this.runner.run(() => this.statements.release.run(keyId, idempotencyKey, token));
        } finally {
          unclaim();
        }
      },
    };
  }
}

/** key_id, idempotency_key, fingerprint, request_path, status, response_body, response_content_type, created_at, completed_at. */
type CompleteParams = [string, string, string, string, number, string, string | null, string, string];

/** A response stored on the key's row (a new row if there is none), where `where` allows it on the row that is there. */
const completeSql = (where: string) =>
  `INSERT INTO idempotency_keys
     (key_id, idempotency_key, fingerprint, request_path, event_positions, status, response_body, response_content_type, created_at, completed_at)
   VALUES (?, ?, ?, ?, '[]', ?, ?, ?, ?, ?)
   ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
     status = excluded.status, response_body = excluded.response_body,
     response_content_type = excluded.response_content_type, completed_at = excluded.completed_at
   WHERE ${where}`;

/**
 * Rows a purge looks at (the oldest): the middleware purges every 100 completions, each adding one row at
 * most, so a window of 1,000 keeps up with the writes ten times over and reads 1,000 rows of the B-tree.
 */
export const PURGE_WINDOW = 1_000;

const claimSlot = (keyId: string, idempotencyKey: string) => `${keyId}\n${idempotencyKey}`;

/** `token`, or an instant just after `previous` if the clock has not passed it. */
const laterToken = (token: string, previous: string) => (token > previous ? token : new Date(Date.parse(previous) + 1).toISOString());
