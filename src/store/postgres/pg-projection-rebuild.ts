import { getTableName } from 'drizzle-orm';
import type pg from 'pg';
import type { AnyRowProjection } from '../../../projections/projection.js';
import { eventColumns, toReplayedEvent, type EventRow } from '../event-codec.js';
import type { EventLog } from '../event-log.js';
import { runAwaited } from '../procedure.js';
import { ProjectionRebuild, type RebuildSession, type Scratch, type ScratchPlan } from '../projection-rebuild.js';
import type { LinkedTable } from '../projection-replay.js';
import { quote, type Row } from '../projection-rows.js';
import { LOCK_CLASS, newClient, REBUILD_LOCK, sqlState, STARTUP_REBUILD_LOCK, WRITE_LOCK, type PgOptions } from './pg-database.js';
import { PgProjectionTable, primaryKeyColumns } from './pg-projection-writer.js';
import { movesReadGeneration } from '../read-generation-tables.js';
import { bumpReadGeneration } from './pg-read-generation.js';

/** How long the swap waits for the writers' lock before it gives way and tries again (the writers keep going). */
const SWAP_LOCK_TIMEOUT = '2s';
const SWAP_ATTEMPTS = 10;

/**
 * Rebuild and verify on PostgreSQL, while every instance keeps serving. The replay and the swap run on a
 * connection of the rebuild's own, under a session lock of its own, so two rebuilds (two instances
 * starting, or the CLI) take turns instead of sharing scratch tables. The swap's transaction waits for the
 * writers' advisory lock with a timeout and, past it, gives way and is tried again, so the DDL never
 * queues up in front of the writers.
 */
export class PgProjectionMaintenance extends ProjectionRebuild {
  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    log: EventLog,
    private readonly now: () => Date,
    private readonly options: PgOptions & { replayBatch?: number } = {},
  ) {
    super(log, options.replayBatch);
  }

  protected async query(sql: string): Promise<Row[]> {
    return (await this.pool.query<Row>(sql)).rows;
  }

  protected async logHolds(types: readonly string[]): Promise<boolean> {
    return (await this.pool.query('SELECT 1 FROM events WHERE type = ANY($1) LIMIT 1', [[...types]])).rows.length > 0;
  }

  protected recordCurrent(projection: AnyRowProjection): Promise<void> {
    return this.recordVersion(this.pool, projection, 0);
  }

  protected oneAtATime<R>(work: () => Promise<R>): Promise<R> {
    return this.locked(STARTUP_REBUILD_LOCK, () => work());
  }

  protected withSession<R>(use: <T extends LinkedTable<T>>(session: RebuildSession<T>) => Promise<R>): Promise<R> {
    return this.locked(REBUILD_LOCK, (client) =>
      use({
        all: async (sql) => (await client.query<Row>(sql)).rows,
        createScratch: (projections) => this.createScratch(client, projections),
        replay: (step) => runAwaited(step),
        underWriteLock: async (procedure, undo) => {
          for (let attempt = 1; ; attempt++) {
            await client.query('BEGIN');
            try {
              await client.query(`SET LOCAL lock_timeout = '${SWAP_LOCK_TIMEOUT}'`);
              await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, WRITE_LOCK]);
              const result = await runAwaited(procedure());
              await client.query('COMMIT');
              return result;
            } catch (error) {
              await client.query('ROLLBACK').catch(() => undefined);
              undo();
              if (sqlState(error) !== '55P03' || attempt >= SWAP_ATTEMPTS) throw error;
            }
          }
        },
        eventsAfter: async (position, types) => {
          const { rows } = await client.query<EventRow>(
            `SELECT ${eventColumns(false)} FROM events WHERE global_position > $1 AND type = ANY($2) ORDER BY global_position`,
            [position, types],
          );
          return rows.map(toReplayedEvent);
        },
        recordRebuilt: async (projection, through) => {
          await this.recordVersion(client, projection, through);
          // A replaced table's rows may differ from what the instances keep in memory.
          if (movesReadGeneration(projection)) await bumpReadGeneration(client);
        },
      }),
    );
  }

  /** Runs `work` on a connection of its own, holding the session advisory lock `lock`. */
  private async locked<R>(lock: number, work: (client: pg.Client) => Promise<R>): Promise<R> {
    const client = await newClient(this.url, { ...this.options, statementTimeoutMs: 0, lockTimeoutMs: 0, idleInTransactionTimeoutMs: 0, role: 'rebuild' });
    try {
      await client.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, lock]);
      return await work(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, lock]).catch(() => undefined);
      await client.end().catch(() => undefined);
    }
  }

  private async createScratch(client: pg.Client, projections: readonly AnyRowProjection[]): Promise<Scratch<PgProjectionTable>> {
    const plans: ScratchPlan[] = [];
    for (const projection of projections) {
      const table = getTableName(projection.table);
      const scratch = `${table}__rebuild`;
      const pk = await client.query<{ name: string }>(`SELECT conname AS name FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`, [quote(table)]);
      const indexes = await client.query<{ definition: string }>(
        `SELECT indexdef AS definition FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexname <> $2`,
        [table, pk.rows[0]?.name ?? ''],
      );
      const primaryKeyName = pk.rows[0]?.name ?? `${table}_pkey`;
      const restore = [`ALTER TABLE ${quote(table)} RENAME CONSTRAINT ${quote(`${scratch}_pkey`)} TO ${quote(primaryKeyName)}`, ...indexes.rows.map((r) => r.definition)];
      plans.push({ projection, table, scratch, restore });
      await client.query(`DROP TABLE IF EXISTS ${quote(scratch)}`);
      // Same columns, defaults and primary key; the other indexes are created at the swap (faster inserts meanwhile).
      await client.query(`CREATE TABLE ${quote(scratch)} (LIKE ${quote(table)} INCLUDING DEFAULTS)`);
      await client.query(`ALTER TABLE ${quote(scratch)} ADD CONSTRAINT ${quote(`${scratch}_pkey`)} PRIMARY KEY (${primaryKeyColumns(projection).map(quote).join(', ')})`);
    }
    return {
      plans,
      tables: plans.map((plan) => new PgProjectionTable(plan.projection, plan.scratch)),
      rows: {
        loadMany: (table, keys) => table.loadMany(client, keys),
        upsertMany: (table, rows) => table.upsertMany(client, rows),
        delete: (table, key) => table.delete(client, key),
      },
    };
  }

  private async recordVersion(client: pg.Pool | pg.ClientBase, projection: AnyRowProjection, through: number): Promise<void> {
    await client.query(
      `INSERT INTO projection_versions (name, version, rebuilt_through, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (name) DO UPDATE SET version = excluded.version, rebuilt_through = excluded.rebuilt_through, updated_at = excluded.updated_at`,
      [projection.name, projection.version, through, this.now().toISOString()],
    );
  }
}
