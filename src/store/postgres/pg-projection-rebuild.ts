import { getTableName } from 'drizzle-orm';
import type pg from 'pg';
import type { AnyRowProjection } from '../../../projections/projection.js';
import { eventColumns, toReplayedEvent, type EventRow } from '../event-codec.js';
import type { EventLog } from '../event-log.js';
import type { StoredLedgerEvent } from '../event-store.js';
import { rebuildSummary, staleProjections, type ProjectionMaintenance, type RebuildOptions, type RebuildSummary, type RowDifference, type VerifyResult } from '../projection-maintenance.js';
import { rowCacheId, type Key, type Row } from '../projection-rows.js';
import { LOCK_CLASS, newClient, REBUILD_LOCK, sqlState, STARTUP_REBUILD_LOCK, WRITE_LOCK, type PgOptions } from './pg-database.js';
import { linkTallies, PgProjectionTable, primaryKeyColumns, touchedKeys } from './pg-projection-writer.js';
import { applyTallyChange, tallyChanges, withTallyPartners, type TallyChange } from '../tallies.js';
import { bumpReadGeneration, READ_GENERATION_TABLES } from './pg-read-generation.js';

const SCRATCH_SUFFIX = '__rebuild';
const DEFAULT_REPLAY_BATCH = 10_000;
/** How long the swap waits for the writers' lock before it gives way and tries again (the writers keep going). */
const SWAP_LOCK_TIMEOUT = '2s';
const SWAP_ATTEMPTS = 10;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

interface Plan {
  readonly projection: AnyRowProjection;
  readonly table: string;
  readonly scratch: string;
  readonly keyColumns: readonly string[];
  /** The primary key constraint's name and the other indexes' definitions, to recreate them at the swap. */
  readonly primaryKeyName: string;
  readonly indexes: readonly { name: string; definition: string }[];
}

interface Scratch {
  readonly plans: Plan[];
  /** Replays what was appended since the snapshot: call under the writers' lock. */
  catchUp(): Promise<void>;
  /** Forgets a catch-up whose transaction was rolled back. */
  undo(): void;
  eventsRead(): number;
  through(): number;
}

/**
 * The rows a replay changes, kept in memory and written once per flush. A
 * batch of events has the rows it touches loaded first, in one query per
 * table (round trips dominate on PostgreSQL), then is applied synchronously.
 */
class PgReplayCache {
  private readonly rows = new Map<string, { table: PgProjectionTable; key: Key; row: Row | null; dirty: boolean; existed: boolean }>();
  private readonly byType = new Map<string, PgProjectionTable[]>();

  constructor(
    readonly tables: readonly PgProjectionTable[],
    private readonly maxRows: number,
  ) {
    for (const table of tables) for (const type of table.projection.handles) this.byType.set(type, [...(this.byType.get(type) ?? []), table]);
  }

  async apply(client: pg.ClientBase, events: readonly StoredLedgerEvent[]): Promise<void> {
    await this.load(client, touchedKeys((type) => this.byType.get(type) ?? [], events));
    const changes: { table: PgProjectionTable; change: TallyChange }[] = [];
    for (const stored of events) {
      for (const table of this.byType.get(stored.event.type) ?? []) {
        const key = table.projection.keyOf(stored);
        if (!key) continue;
        const entry = this.rows.get(rowCacheId(table.tableName, key))!;
        const before = entry.row;
        entry.row = table.projection.evolve(entry.row, stored) as Row | null;
        entry.dirty = true;
        for (const tally of table.tallies) for (const change of tallyChanges(tally.projection, before, entry.row)) changes.push({ table: tally, change });
      }
    }
    // The tallies' rows: known once the source rows have moved.
    const tallyKeys = new Map<PgProjectionTable, Map<string, Key>>();
    for (const { table, change } of changes) {
      tallyKeys.set(table, (tallyKeys.get(table) ?? new Map<string, Key>()).set(rowCacheId(table.tableName, change.key), change.key));
    }
    await this.load(client, tallyKeys);
    for (const { table, change } of changes) {
      const entry = this.rows.get(rowCacheId(table.tableName, change.key))!;
      entry.row = applyTallyChange(entry.row, change);
      entry.dirty = true;
    }
  }

  /** Loads the rows of `keys` not in memory, in one query a table. */
  private async load(client: pg.ClientBase, keys: ReadonlyMap<PgProjectionTable, ReadonlyMap<string, Key>>): Promise<void> {
    for (const [table, byId] of keys) {
      const missing = [...byId].filter(([id]) => !this.rows.has(id));
      if (missing.length === 0) continue;
      const found = await table.loadMany(client, missing.map(([, key]) => key));
      for (const [id, key] of missing) {
        const row = found.get(id) ?? null;
        this.rows.set(id, { table, key, row, dirty: false, existed: row !== null });
      }
    }
  }

  async flush(client: pg.ClientBase): Promise<void> {
    const upserts = new Map<PgProjectionTable, Row[]>();
    for (const entry of this.rows.values()) {
      if (!entry.dirty) continue;
      if (entry.row === null) {
        if (entry.existed) await entry.table.delete(client, entry.key);
      } else {
        upserts.set(entry.table, [...(upserts.get(entry.table) ?? []), entry.row]);
      }
      entry.existed = entry.row !== null;
      entry.dirty = false;
    }
    for (const [table, rows] of upserts) await table.upsertMany(client, rows);
    if (this.rows.size > this.maxRows) this.rows.clear();
  }

  /** Forgets every row (after a rolled-back transaction, the tables are the truth again). */
  clear(): void {
    this.rows.clear();
  }
}

/**
 * Rebuild and verify on PostgreSQL, while every instance keeps serving: the
 * log is read through one REPEATABLE READ snapshot (the log reader), replayed
 * into scratch tables on a connection of this rebuild's own, and the swap (or
 * the comparison) catches up with what was appended meanwhile under the
 * writers' advisory lock, in one short transaction with a lock timeout,
 * retried if the lock cannot be had in time. A whole rebuild holds a session
 * lock of its own: two rebuilds (two instances starting, or the CLI) take
 * turns instead of sharing scratch tables.
 */
export class PgProjectionMaintenance implements ProjectionMaintenance {
  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly log: EventLog,
    private readonly now: () => Date,
    private readonly options: PgOptions & { replayBatch?: number } = {},
  ) {}

  async stale(projections: readonly AnyRowProjection[]): Promise<AnyRowProjection[]> {
    const stored = new Map((await this.pool.query<{ name: string; version: number }>('SELECT name, version FROM projection_versions')).rows.map((r) => [r.name, r.version]));
    return staleProjections(stored, projections, {
      hasRows: async (projection) => (await this.pool.query(`SELECT 1 FROM ${quote(getTableName(projection.table))} LIMIT 1`)).rows.length > 0,
      logHolds: async (types) => (await this.pool.query('SELECT 1 FROM events WHERE type = ANY($1) LIMIT 1', [[...types]])).rows.length > 0,
      recordCurrent: (projection) => this.recordVersion(this.pool, projection, 0),
    });
  }

  async rebuild(chosen: readonly AnyRowProjection[], options: RebuildOptions = {}): Promise<RebuildSummary> {
    const started = performance.now();
    const projections = withTallyPartners(chosen);
    return this.withScratch(projections, options, async (client, scratch) => {
      let rowsWritten = 0;
      await this.underWriteLock(client, scratch.undo, async () => {
        await scratch.catchUp();
        for (const plan of scratch.plans) {
          await client.query(`DROP TABLE ${quote(plan.table)}`);
          await client.query(`ALTER TABLE ${quote(plan.scratch)} RENAME TO ${quote(plan.table)}`);
          await client.query(`ALTER TABLE ${quote(plan.table)} RENAME CONSTRAINT ${quote(`${plan.scratch}_pkey`)} TO ${quote(plan.primaryKeyName)}`);
          for (const index of plan.indexes) await client.query(index.definition);
          rowsWritten += (await client.query<{ n: number }>(`SELECT count(*) AS n FROM ${quote(plan.table)}`)).rows[0]!.n;
          await this.recordVersion(client, plan.projection, scratch.through());
          // A replaced table's rows may differ from what the instances keep in memory.
          if (READ_GENERATION_TABLES.has(plan.table)) await bumpReadGeneration(client);
        }
      });
      return rebuildSummary(projections, scratch.eventsRead(), rowsWritten, started);
    });
  }

  /** Under a session lock of its own: instances starting together check and rebuild one after another. */
  async rebuildStale(
    projections: readonly AnyRowProjection[],
    options: RebuildOptions & { onStale?: (stale: readonly AnyRowProjection[]) => void } = {},
  ): Promise<RebuildSummary | null> {
    const gate = await newClient(this.url, { ...this.options, statementTimeoutMs: 0, lockTimeoutMs: 0, role: 'rebuild' });
    try {
      await gate.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, STARTUP_REBUILD_LOCK]);
      const stale = await this.stale(projections);
      if (stale.length === 0) return null;
      options.onStale?.(stale);
      return await this.rebuild(stale, options);
    } finally {
      await gate.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, STARTUP_REBUILD_LOCK]).catch(() => undefined);
      await gate.end().catch(() => undefined);
    }
  }

  async verify(chosen: readonly AnyRowProjection[], options: RebuildOptions & { maxDifferences?: number } = {}): Promise<VerifyResult> {
    const projections = withTallyPartners(chosen);
    const limit = options.maxDifferences ?? 100;
    return this.withScratch(projections, options, async (client, scratch) => {
      const differences: RowDifference[] = [];
      try {
        await this.underWriteLock(client, scratch.undo, async () => {
          differences.length = 0;
          await scratch.catchUp();
          for (const plan of scratch.plans) {
            const live = await client.query(`SELECT * FROM ${quote(plan.table)} EXCEPT SELECT * FROM ${quote(plan.scratch)} LIMIT ${limit}`);
            const rebuilt = await client.query(`SELECT * FROM ${quote(plan.scratch)} EXCEPT SELECT * FROM ${quote(plan.table)} LIMIT ${limit}`);
            for (const row of live.rows) differences.push({ projection: plan.projection.name, side: 'live', row: row as Record<string, unknown> });
            for (const row of rebuilt.rows) differences.push({ projection: plan.projection.name, side: 'rebuilt', row: row as Record<string, unknown> });
          }
        });
      } finally {
        for (const plan of scratch.plans) await client.query(`DROP TABLE IF EXISTS ${quote(plan.scratch)}`);
      }
      return { differences, eventsRead: scratch.eventsRead() };
    });
  }

  /**
   * On a connection of its own, under the rebuild lock: creates the scratch
   * tables, replays the log up to its snapshot into them, and hands over to
   * `finish` with a `catchUp` for the events appended since (to call under
   * the writers' lock).
   */
  private async withScratch<T>(
    projections: readonly AnyRowProjection[],
    options: RebuildOptions,
    finish: (client: pg.Client, scratch: Scratch) => Promise<T>,
  ): Promise<T> {
    const client = await newClient(this.url, { ...this.options, statementTimeoutMs: 0, lockTimeoutMs: 0, idleInTransactionTimeoutMs: 0, role: 'rebuild' });
    try {
      await client.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, REBUILD_LOCK]);
      const plans: Plan[] = [];
      for (const projection of projections) {
        const table = getTableName(projection.table);
        const pk = await client.query<{ name: string }>(`SELECT conname AS name FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`, [quote(table)]);
        const indexes = await client.query<{ name: string; definition: string }>(
          `SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexname <> $2`,
          [table, pk.rows[0]?.name ?? ''],
        );
        plans.push({
          projection,
          table,
          scratch: `${table}${SCRATCH_SUFFIX}`,
          keyColumns: primaryKeyColumns(projection),
          primaryKeyName: pk.rows[0]?.name ?? `${table}_pkey`,
          indexes: indexes.rows,
        });
      }
      for (const plan of plans) {
        await client.query(`DROP TABLE IF EXISTS ${quote(plan.scratch)}`);
        // Same columns and defaults and the primary key; the other indexes are created at the swap (faster inserts meanwhile).
        await client.query(`CREATE TABLE ${quote(plan.scratch)} (LIKE ${quote(plan.table)} INCLUDING DEFAULTS)`);
        await client.query(`ALTER TABLE ${quote(plan.scratch)} ADD CONSTRAINT ${quote(`${plan.scratch}_pkey`)} PRIMARY KEY (${plan.keyColumns.map(quote).join(', ')})`);
      }
      const replayBatch = this.options.replayBatch ?? DEFAULT_REPLAY_BATCH;
      const tables = plans.map((plan) => new PgProjectionTable(plan.projection, plan.scratch));
      linkTallies(tables);
      const cache = new PgReplayCache(tables, replayBatch);
      const types = [...new Set(projections.flatMap((p) => p.handles))];
      const withBulkFields = projections.some((p) => p.readsElidedFields);
      const snapshot = await this.log.open({ types, withBulkFields, count: true, batchSize: Math.min(2_000, replayBatch) });
      let through = snapshot.through;
      let eventsRead = 0;
      let unflushed = 0;
      const eventsTotal = snapshot.total ?? 0;
      try {
        for await (const events of snapshot) {
          await cache.apply(client, events);
          unflushed += events.length;
          if (unflushed >= replayBatch) {
            await cache.flush(client);
            unflushed = 0;
          }
          eventsRead += events.length;
          options.onProgress?.({ eventsRead, eventsTotal });
        }
        await cache.flush(client);
      } finally {
        await snapshot.close();
      }
      if (eventsRead === 0) options.onProgress?.({ eventsRead, eventsTotal });
      // The catch-up runs in the swap's transaction, which may be rolled back and tried again: `undo` forgets it.
      let saved = { through, eventsRead };
      const undo = () => {
        ({ through, eventsRead } = saved);
        cache.clear();
      };
      const catchUp = async () => {
        saved = { through, eventsRead };
        if (types.length === 0) return;
        const later = await client.query<EventRow>(
          `SELECT ${eventColumns(withBulkFields)} FROM events WHERE global_position > $1 AND type = ANY($2) ORDER BY global_position`,
          [through, types],
        );
        const events = later.rows.map(toReplayedEvent);
        await cache.apply(client, events);
        await cache.flush(client);
        through = (await client.query<{ p: number }>('SELECT coalesce(max(global_position), 0) AS p FROM events')).rows[0]!.p;
        eventsRead += events.length;
      };
      return await finish(client, { plans, catchUp, undo, eventsRead: () => eventsRead, through: () => through });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, REBUILD_LOCK]).catch(() => undefined);
      await client.end().catch(() => undefined);
    }
  }

  /**
   * One transaction under the writers' lock, which pauses every instance's
   * appends for its duration; if the lock cannot be had within the timeout
   * (a long batch holds it), the transaction gives way and is tried again, so
   * the DDL never queues up in front of the writers.
   */
  private async underWriteLock(client: pg.Client, undo: () => void, work: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL lock_timeout = '${SWAP_LOCK_TIMEOUT}'`);
        await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, WRITE_LOCK]);
        await work();
        await client.query('COMMIT');
        return;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        undo();
        if (sqlState(error) !== '55P03' || attempt >= SWAP_ATTEMPTS) throw error;
      }
    }
  }

  private async recordVersion(client: pg.Pool | pg.ClientBase, projection: AnyRowProjection, through: number): Promise<void> {
    await client.query(
      `INSERT INTO projection_versions (name, version, rebuilt_through, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (name) DO UPDATE SET version = excluded.version, rebuilt_through = excluded.rebuilt_through, updated_at = excluded.updated_at`,
      [projection.name, projection.version, through, this.now().toISOString()],
    );
  }
}
