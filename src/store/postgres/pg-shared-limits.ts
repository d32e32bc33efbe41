import { createHash } from 'node:crypto';
import type pg from 'pg';
import { pausedWindow, secondsToWait, takeWindowStart, type SharedLimits, type SlotLease, type WindowState } from '../shared-limits.js';
import type { PgOptions } from './pg-database.js';
import { PgSessionHolder } from './pg-session-holder.js';

/** Advisory lock class of the limits' slots. */
const SLOT_LOCK_CLASS = 0x1ed6e9;
/** Slot numbers are added to a base derived from the name: at most this many slots per name. */
const MAX_SLOTS = 1 << 16;

const baseOf = (name: string) => (createHash('sha256').update(name).digest().readUInt16BE(0) << 16) | 0;

/**
 * Limits shared by every instance on the database. A slot is a session advisory lock (an instance that
 * dies frees its slots with its session), the ids tried in one statement. A token bucket is a row refilled
 * and taken in one upsert; a sliding window a row locked and updated by the in-process store's function.
 */
export class PgSharedLimits implements SharedLimits {
  private readonly holder: PgSessionHolder;
  /** Slots this instance holds, by name (a session may take its own lock again: never ask for those). */
  private readonly heldHere = new Map<string, Set<number>>();

  constructor(
    private readonly pool: pg.Pool,
    url: string,
    private readonly now: () => Date,
    options: PgOptions = {},
  ) {
    // The session's locks died with it: forget the slots this instance held.
    this.holder = new PgSessionHolder(url, { ...options, role: 'slots' }, () => this.heldHere.clear());
  }

  async tryAcquireSlot(name: string, limit: number | null): Promise<SlotLease | null> {
    // Without a limit there is nothing to hold across instances.
    if (limit === null) return { release: async () => undefined };
    const base = baseOf(name);
    // One acquisition at a time on this instance: a session may take its own lock again, so the slots it
    // holds are left out of the search, and that set must not change between reading it and adding to it.
    const taken = await this.holder.exclusive(async (session) => {
      const held = this.heldHere.get(name) ?? new Set<number>();
      this.heldHere.set(name, held);
      const { rows } = await session.query<{ slot: number }>(
        `SELECT s AS slot FROM generate_series(0, $1::int - 1) AS s
          WHERE NOT (s = ANY($2::int[])) AND pg_try_advisory_lock($3, $4 + s) LIMIT 1`,
        [Math.min(limit, MAX_SLOTS), [...held], SLOT_LOCK_CLASS, base],
      );
      const slot = rows[0]?.slot;
      if (slot === undefined) return null;
      held.add(slot);
      return { slot, held, session };
    });
    if (!taken) return null;
    const { slot, held, session } = taken;
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        held.delete(slot);
        if (await this.holder.isCurrent(session)) await this.holder.query('SELECT pg_advisory_unlock($1, $2)', [SLOT_LOCK_CLASS, base + slot]).catch(() => undefined);
      },
    };
  }

  async takeToken(name: string, rate: number): Promise<number | null> {
    const atMs = this.now().getTime();
    const refilled = 'least($2::float8, b.tokens + greatest(0, $3::bigint - b.updated_at_ms) / 1000.0 * $2::float8)';
    const taken = await this.pool.query(
      `INSERT INTO rate_limit_buckets AS b (name, tokens, updated_at_ms) VALUES ($1, $2::float8 - 1, $3)
       ON CONFLICT (name) DO UPDATE SET tokens = ${refilled} - 1, updated_at_ms = $3 WHERE ${refilled} >= 1
       RETURNING tokens`,
      [name, rate, atMs],
    );
    if (taken.rows.length > 0) return null;
    const { rows } = await this.pool.query<{ tokens: number; updated_at_ms: number }>('SELECT tokens, updated_at_ms FROM rate_limit_buckets WHERE name = $1', [name]);
    const row = rows[0];
    const tokens = row ? Math.min(rate, row.tokens + (Math.max(0, atMs - row.updated_at_ms) / 1000) * rate) : rate;
    return secondsToWait(tokens, rate);
  }

  async takeWindowStart(name: string, limit: number, windowMs: number): Promise<number | null> {
    return this.updateWindow(name, (state) => takeWindowStart(state, this.now().getTime(), limit, windowMs));
  }

  async pauseWindow(name: string, untilMs: number): Promise<void> {
    await this.updateWindow(name, (state) => ({ state: pausedWindow(state, untilMs), waitMs: null }));
  }

  /** Applies `change` to the window's row under its row lock: instances asking at once take turns. */
  private async updateWindow(name: string, change: (state: WindowState) => { state: WindowState; waitMs: number | null }): Promise<number | null> {
    const client = await this.pool.connect();
    let failed: Error | undefined;
    try {
      await client.query('BEGIN');
      // An upsert that changes nothing still locks the row, and returns it, in one statement.
      const { rows } = await client.query<{ starts_ms: string; paused_until_ms: number }>(
        `INSERT INTO rate_limit_windows (name, starts_ms, paused_until_ms) VALUES ($1, '[]', 0)
         ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING starts_ms, paused_until_ms`,
        [name],
      );
      const row = rows[0]!;
      const next = change({ startsMs: JSON.parse(row.starts_ms) as number[], pausedUntilMs: row.paused_until_ms });
      // A refused start changes nothing worth keeping: only a start taken, or a pause, is written.
      if (next.waitMs === null) {
        await client.query('UPDATE rate_limit_windows SET starts_ms = $2, paused_until_ms = $3 WHERE name = $1', [
          name,
          JSON.stringify(next.state.startsMs),
          next.state.pausedUntilMs,
        ]);
      }
      await client.query('COMMIT');
      return next.waitMs;
    } catch (error) {
      failed = error instanceof Error ? error : new Error(String(error));
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      // A connection that failed mid-transaction is not given back to the pool.
      client.release(failed);
    }
  }

  async close(): Promise<void> {
    await this.holder.close();
  }
}
