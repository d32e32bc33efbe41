import type Database from 'better-sqlite3';
import type { ParkedMessage, RelayCursor, RelayCursorRow, RelayStore } from '../relay-store.js';

type TakeParams = { name: string; position: number; holder: string; until: number; replaySeq: number; at: string; now: number };
type CursorRow = { name: string; position: number; holder: string | null; lease_expires_at_ms: number | null; replay_seq: number };
type ParkedRow = { endpoint_id: string; position: number; ordering_key: string; attempts: number; next_attempt_at_ms: number | null; first_failed_at_ms: number };

const toParked = (r: ParkedRow): ParkedMessage => ({
  endpointId: r.endpoint_id,
  position: r.position,
  orderingKey: r.ordering_key,
  attempts: r.attempts,
  nextAttemptAtMs: r.next_attempt_at_ms,
  firstFailedAtMs: r.first_failed_at_ms,
});

/**
 * The relays' storage on the service's SQLite connection. Its writes are units of the group commit (`run`):
 * they share the batches' transactions and WAL syncs rather than syncing on their own on the event loop.
 */
export class SqliteRelayStore implements RelayStore {
  private readonly statements;

  constructor(
    sqlite: Database.Database,
    private readonly run: <T>(work: () => T) => Promise<T>,
  ) {
    this.statements = {
      take: sqlite.prepare<[TakeParams], { position: number; replay_seq: number }>(
        `INSERT INTO relay_cursors (name, position, holder, lease_expires_at_ms, replay_seq, updated_at) VALUES (@name, @position, @holder, @until, @replaySeq, @at)
         ON CONFLICT (name) DO UPDATE SET holder = @holder, lease_expires_at_ms = @until, updated_at = @at
         WHERE relay_cursors.holder IS NULL OR relay_cursors.holder = @holder OR relay_cursors.lease_expires_at_ms < @now
         RETURNING position, replay_seq`,
      ),
      advance: sqlite.prepare<[number, number, number, string, string, string]>(
        'UPDATE relay_cursors SET position = ?, replay_seq = ?, lease_expires_at_ms = ?, updated_at = ? WHERE name = ? AND holder = ?',
      ),
      release: sqlite.prepare<[string, string]>('UPDATE relay_cursors SET holder = NULL, lease_expires_at_ms = NULL WHERE name = ? AND holder = ?'),
      cursors: sqlite.prepare<[], CursorRow>('SELECT name, position, holder, lease_expires_at_ms, replay_seq FROM relay_cursors ORDER BY name'),
      countParked: sqlite.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM webhook_retries WHERE endpoint_id = ?'),
      parked: sqlite.prepare<[string, number], ParkedRow>('SELECT * FROM webhook_retries WHERE endpoint_id = ? ORDER BY position LIMIT ?'),
      park: sqlite.prepare<[string, number, string, number, number | null, number]>(
        `INSERT INTO webhook_retries (endpoint_id, position, ordering_key, attempts, next_attempt_at_ms, first_failed_at_ms) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (endpoint_id, position) DO UPDATE SET attempts = excluded.attempts, next_attempt_at_ms = excluded.next_attempt_at_ms`,
      ),
      unpark: sqlite.prepare<[string, number]>('DELETE FROM webhook_retries WHERE endpoint_id = ? AND position = ?'),
      unparkFrom: sqlite.prepare<[string, number]>('DELETE FROM webhook_retries WHERE endpoint_id = ? AND position >= ?'),
    };
  }

  async acquire(name: string, holder: string, nowMs: number, leaseMs: number, initial: RelayCursor): Promise<RelayCursor | null> {
    const params = { name, position: initial.position, holder, until: nowMs + leaseMs, replaySeq: initial.replaySeq, at: new Date(nowMs).toISOString(), now: nowMs };
    const row = await this.run(() => this.statements.take.get(params));
    return row ? { position: row.position, replaySeq: row.replay_seq } : null;
  }

  async advance(name: string, holder: string, nowMs: number, leaseMs: number, cursor: RelayCursor): Promise<boolean> {
    const { changes } = await this.run(() => this.statements.advance.run(cursor.position, cursor.replaySeq, nowMs + leaseMs, new Date(nowMs).toISOString(), name, holder));
    return changes === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.run(() => this.statements.release.run(name, holder));
  }

  async cursors(): Promise<readonly RelayCursorRow[]> {
    return this.statements.cursors.all().map((r) => ({ name: r.name, position: r.position, replaySeq: r.replay_seq, holder: r.holder, leaseExpiresAtMs: r.lease_expires_at_ms }));
  }

  async countParked(endpointId: string): Promise<number> {
    return this.statements.countParked.get(endpointId)?.n ?? 0;
  }

  async parked(endpointId: string, limit: number): Promise<readonly ParkedMessage[]> {
    return this.statements.parked.all(endpointId, limit).map(toParked);
  }

  async park(messages: readonly ParkedMessage[]): Promise<void> {
    await this.run(() => {
      for (const m of messages) this.statements.park.run(m.endpointId, m.position, m.orderingKey, m.attempts, m.nextAttemptAtMs, m.firstFailedAtMs);
    });
  }

  async unpark(endpointId: string, which: { readonly positions: readonly number[] } | { readonly from: number }): Promise<void> {
    await this.run(() => {
      if ('from' in which) this.statements.unparkFrom.run(endpointId, which.from);
      else for (const p of which.positions) this.statements.unpark.run(endpointId, p);
    });
  }
}
