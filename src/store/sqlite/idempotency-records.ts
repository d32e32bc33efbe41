import type Database from 'better-sqlite3';
import type { BeforeCommit } from '../event-store.js';
import { toIdempotencyRecord, type IdempotencyKeyRaw } from '../idempotency-schema.js';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_RETENTION_MS,
  keyInProgress,
  type ExistingReservation,
  type HeldReservation,
  type IdempotencyRecord,
  type IdempotencyRecords,
  type IdempotentRequest,
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
 * reservation's frames too). The same holds for a response that a retry
 * would rebuild from the request's events (`complete` with `rebuildable`). So
 * a keyed request that writes waits for one sync (its events') instead of
 * three before it can answer.
 */
export class SqliteIdempotencyRecords implements IdempotencyRecords {
  private readonly statements;
  /** When this process opened the database: a reservation older than that was made by a process that has stopped. */
  private readonly openedAt: string;

  constructor(
    sqlite: Database.Database,
    private readonly runner: GroupCommitRunner,
    private readonly clock: () => Date,
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
      record: sqlite.prepare<[string, string, string, string]>(
        `UPDATE idempotency_keys SET event_positions = (SELECT json_group_array(value) FROM (
            SELECT value FROM json_each(idempotency_keys.event_positions) UNION ALL SELECT value FROM json_each(?)))
          WHERE key_id = ? AND idempotency_key = ? AND created_at = ? AND status IS NULL`,
      ),
      completeHeld: sqlite.prepare<[number, string, string | null, string, string, string, string]>(
        `UPDATE idempotency_keys SET status = ?, response_body = ?, response_content_type = ?, completed_at = ?
          WHERE key_id = ? AND idempotency_key = ? AND created_at = ? AND status IS NULL`,
      ),
      completeAny: sqlite.prepare<[string, string, string, string, number, string, string | null, string, string]>(
        `INSERT INTO idempotency_keys
           (key_id, idempotency_key, fingerprint, request_path, event_positions, status, response_body, response_content_type, created_at, completed_at)
         VALUES (?, ?, ?, ?, '[]', ?, ?, ?, ?, ?)
         ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
           status = excluded.status, response_body = excluded.response_body,
           response_content_type = excluded.response_content_type, completed_at = excluded.completed_at
         WHERE idempotency_keys.status IS NULL`,
      ),
      release: sqlite.prepare<[string, string, string]>(
        `DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ? AND created_at = ? AND status IS NULL AND event_positions = '[]'`,
      ),
      purge: sqlite.prepare<[string]>('DELETE FROM idempotency_keys WHERE created_at < ?'),
    };
  }

  async find(keyId: string, idempotencyKey: string): Promise<IdempotencyRecord | null> {
    const raw = this.live(keyId, idempotencyKey);
    return raw ? toIdempotencyRecord(raw) : null;
  }

  async reserve(request: IdempotentRequest): Promise<HeldReservation | ExistingReservation> {
    const taken = await this.runner.runCommitted((): { held: true; token: string } | ExistingReservation => {
      const now = this.clock();
      const token = now.toISOString();
      const existing = this.live(request.keyId, request.idempotencyKey);
      if (!existing) {
        this.statements.reserve.run(request.keyId, request.idempotencyKey, request.fingerprint, request.requestPath, token);
        return { held: true, token };
      }
      // Nothing recorded, and its holder gone: a SQLite file is served by one server process at a time, so a
      // reservation made before this process opened it was left by a process that stopped (a crash): the
      // client's retry runs at once. Past the lease, any reservation is taken over. Either way, should the
      // holder still write, its unit of work finds the reservation is no longer its own and fails.
      const abandoned =
        existing.status === null &&
        existing.event_positions === '[]' &&
        (existing.created_at < this.openedAt || Date.parse(existing.created_at) < now.getTime() - IDEMPOTENCY_LEASE_MS);
      if (abandoned) {
        // A token later than the old one whatever the clock says: the old holder's writes must fail its check.
        const later = token > existing.created_at ? token : new Date(Date.parse(existing.created_at) + 1).toISOString();
        this.statements.takeOver.run(request.fingerprint, request.requestPath, later, request.keyId, request.idempotencyKey, existing.created_at);
        return { held: true, token: later };
      }
      return { held: false, record: toIdempotencyRecord(existing) };
    });
    return taken.held ? this.held(request, taken.token) : taken;
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
    return this.runner.run(() => this.statements.purge.run(before).changes);
  }

  /** The key's row unless it is past the retention, in which case it is deleted. */
  private live(keyId: string, idempotencyKey: string): IdempotencyKeyRaw | null {
    const raw = this.statements.find.get(keyId, idempotencyKey);
    if (!raw) return null;
    if (raw.created_at < new Date(this.clock().getTime() - IDEMPOTENCY_RETENTION_MS).toISOString()) {
      this.statements.forget.run(keyId, idempotencyKey);
      return null;
    }
    return raw;
  }

  private held(request: IdempotentRequest, token: string): HeldReservation {
    const { keyId, idempotencyKey } = request;
    const beforeCommit: BeforeCommit = (appended, tx) => {
      sqliteTransaction(tx);
      if (appended.length === 0) return;
      const positions = JSON.stringify(appended.map((stored) => stored.globalPosition));
      // Still this request's reservation? Another request may have taken the key over past the lease.
      if (this.statements.record.run(positions, keyId, idempotencyKey, token).changes === 0) throw keyInProgress();
    };
    return {
      held: true,
      reservedAt: token,
      beforeCommit,
      complete: async (response, options) => {
        const now = this.clock().toISOString();
        const store = () => this.statements.completeHeld.run(response.status, response.body, response.contentType, now, keyId, idempotencyKey, token);
        // A response the events rebuild need not wait for the WAL sync: committed, a retry finds it; lost, it rebuilds it.
        await (options?.rebuildable ? this.runner.runCommitted(store) : this.runner.run(store));
      },
      release: async () => {
        await this.runner.run(() => this.statements.release.run(keyId, idempotencyKey, token));
      },
    };
  }
}
