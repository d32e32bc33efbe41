import type pg from 'pg';
import type { ParkedMessage, RelayCursor, RelayCursorRow, RelayStore } from '../relay-store.js';

// bigint columns come back as text from node-postgres: the statements read them as float8 (positions and times fit).
const PARKED_COLUMNS =
  'endpoint_id, position::float8 AS position, ordering_key, attempts::float8 AS attempts, next_attempt_at_ms::float8 AS next_attempt_at_ms, first_failed_at_ms::float8 AS first_failed_at_ms';

type ParkedRow = { endpoint_id: string; position: number; ordering_key: string; attempts: number; next_attempt_at_ms: number | null; first_failed_at_ms: number };

/** The relays' storage shared by every instance on the database: the lease is a row updated only while free, expired, or the holder's own. */
export class PgRelayStore implements RelayStore {
  constructor(private readonly pool: pg.Pool) {}

  async acquire(name: string, holder: string, nowMs: number, leaseMs: number, initial: RelayCursor): Promise<RelayCursor | null> {
    const { rows } = await this.pool.query<{ position: number; replay_seq: number }>(
      `INSERT INTO relay_cursors AS c (name, position, holder, lease_expires_at_ms, replay_seq, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (name) DO UPDATE SET holder = $3, lease_expires_at_ms = $4, updated_at = $6
       WHERE c.holder IS NULL OR c.holder = $3 OR c.lease_expires_at_ms < $7
       RETURNING position::float8 AS position, replay_seq::float8 AS replay_seq`,
      [name, initial.position, holder, nowMs + leaseMs, initial.replaySeq, new Date(nowMs).toISOString(), nowMs],
    );
    const row = rows[0];
    return row ? { position: row.position, replaySeq: row.replay_seq } : null;
  }

  async advance(name: string, holder: string, nowMs: number, leaseMs: number, cursor: RelayCursor): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE relay_cursors SET position = $1, replay_seq = $2, lease_expires_at_ms = $3, updated_at = $4 WHERE name = $5 AND holder = $6',
      [cursor.position, cursor.replaySeq, nowMs + leaseMs, new Date(nowMs).toISOString(), name, holder],
    );
    return rowCount === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.pool.query('UPDATE relay_cursors SET holder = NULL, lease_expires_at_ms = NULL WHERE name = $1 AND holder = $2', [name, holder]);
  }

  async cursors(): Promise<readonly RelayCursorRow[]> {
    const { rows } = await this.pool.query<{ name: string; position: number; holder: string | null; lease_expires_at_ms: number | null; replay_seq: number }>(
      'SELECT name, position::float8 AS position, holder, lease_expires_at_ms::float8 AS lease_expires_at_ms, replay_seq::float8 AS replay_seq FROM relay_cursors ORDER BY name',
    );
    return rows.map((r) => ({ name: r.name, position: r.position, replaySeq: r.replay_seq, holder: r.holder, leaseExpiresAtMs: r.lease_expires_at_ms }));
  }

  async countParked(endpointId: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM webhook_retries WHERE endpoint_id = $1', [endpointId]);
    return rows[0]?.n ?? 0;
  }

  async parked(endpointId: string, limit: number): Promise<readonly ParkedMessage[]> {
    const { rows } = await this.pool.query<ParkedRow>(`SELECT ${PARKED_COLUMNS} FROM webhook_retries WHERE endpoint_id = $1 ORDER BY position LIMIT $2`, [endpointId, limit]);
    return rows.map((r) => ({
      endpointId: r.endpoint_id,
      position: r.position,
      orderingKey: r.ordering_key,
      attempts: r.attempts,
      nextAttemptAtMs: r.next_attempt_at_ms,
      firstFailedAtMs: r.first_failed_at_ms,
    }));
  }

  async park(messages: readonly ParkedMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.pool.query(
      `INSERT INTO webhook_retries (endpoint_id, position, ordering_key, attempts, next_attempt_at_ms, first_failed_at_ms)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
       ON CONFLICT (endpoint_id, position) DO UPDATE SET attempts = excluded.attempts, next_attempt_at_ms = excluded.next_attempt_at_ms`,
      [
        messages.map((m) => m.endpointId),
        messages.map((m) => m.position),
        messages.map((m) => m.orderingKey),
        messages.map((m) => m.attempts),
        messages.map((m) => m.nextAttemptAtMs),
        messages.map((m) => m.firstFailedAtMs),
      ],
    );
  }

  async unpark(endpointId: string, which: { readonly positions: readonly number[] } | { readonly from: number }): Promise<void> {
    if ('from' in which) await this.pool.query('DELETE FROM webhook_retries WHERE endpoint_id = $1 AND position >= $2', [endpointId, which.from]);
    else await this.pool.query('DELETE FROM webhook_retries WHERE endpoint_id = $1 AND position = ANY($2::bigint[])', [endpointId, which.positions]);
  }
}
