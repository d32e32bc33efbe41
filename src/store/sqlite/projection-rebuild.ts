import type Database from 'better-sqlite3';
import { getTableName } from 'drizzle-orm';
import type { AnyRowProjection } from '../../../projections/projection.js';
import { toReplayedEvent, eventColumns, type EventRow } from '../event-codec.js';
import type { EventLog } from '../event-log.js';
import { runNow } from '../procedure.js';
import { ProjectionRebuild, type RebuildSession, type Scratch } from '../projection-rebuild.js';
import type { LinkedTable } from '../projection-replay.js';
import { rowCacheId, type Row } from '../projection-rows.js';
import { movesReadGeneration } from '../read-generation-tables.js';
import { ProjectionTable } from './projection-writer.js';

/**
 * Rebuild and verify on SQLite. The log is read through the log reader (its own read-only connection and
 * snapshot) while the live tables keep serving; the scratch tables are written on the service's connection
 * in synchronous transactions, and the catch-up and swap run in one `BEGIN IMMEDIATE` transaction, which
 * holds every other writer off. One SQLite server per file: the check and the rebuild need no lock of
 * their own.
 */
export class SqliteProjectionMaintenance extends ProjectionRebuild {
  constructor(
    private readonly sqlite: Database.Database,
    log: EventLog,
    private readonly now: () => Date,
    replayBatch?: number,
    /** Told when a rebuild replaced a table behind the read generation (this connection's writes do not move data_version). */
    private readonly onReadGenerationChange: () => void = () => undefined,
  ) {
    super(log, replayBatch);
  }

  protected async query(sql: string): Promise<Row[]> {
    return this.all(sql);
  }

  protected async logHolds(types: readonly string[]): Promise<boolean> {
    return this.sqlite.prepare(`SELECT 1 FROM events WHERE type IN (${types.map(() => '?').join(', ')}) LIMIT 1`).get(...types) !== undefined;
  }

  protected async recordCurrent(projection: AnyRowProjection): Promise<void> {
    this.recordVersion(projection, 0);
  }

  protected oneAtATime<R>(work: () => Promise<R>): Promise<R> {
    return work();
  }

  protected withSession<R>(use: <T extends LinkedTable<T>>(session: RebuildSession<T>) => Promise<R>): Promise<R> {
    const sqlite = this.sqlite;
    return use({
      all: (sql) => this.all(sql),
      createScratch: async (projections) => this.createScratch(projections),
      replay: async (step) => sqlite.transaction(() => runNow(step))(),
      underWriteLock: async (procedure) => sqlite.transaction(() => runNow(procedure())).immediate(),
      eventsAfter: (position, types) =>
        sqlite
          .prepare<unknown[], EventRow>(
            `SELECT ${eventColumns(false)} FROM events WHERE global_position > ? AND +type IN (${types.map(() => '?').join(', ')}) ORDER BY global_position`,
          )
          .all(position, ...types)
          .map(toReplayedEvent),
      recordRebuilt: (projection, through) => {
        this.recordVersion(projection, through);
        if (movesReadGeneration(projection)) this.onReadGenerationChange();
      },
    });
  }

  private all(sql: string): Row[] {
    const statement = this.sqlite.prepare<[], Row>(sql);
    if (statement.reader) return statement.all();
    statement.run();
    return [];
  }

  private createScratch(projections: readonly AnyRowProjection[]): Scratch<ProjectionTable> {
    const sqlite = this.sqlite;
    const plans = projections.map((projection) => {
      const table = getTableName(projection.table);
      const restore = sqlite
        .prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
        .all(table)
        .map((r) => r.sql);
      return { projection, table, scratch: `${table}__rebuild`, restore };
    });
    sqlite.transaction(() => {
      for (const plan of plans) {
        const ddl = sqlite.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(plan.table);
        if (!ddl) throw new Error(`projection table ${plan.table} does not exist`);
        sqlite.exec(`DROP TABLE IF EXISTS "${plan.scratch}"`);
        // Same columns and primary key; secondary indexes are created at the swap (faster inserts meanwhile).
        sqlite.exec(ddl.sql.replace(/^CREATE TABLE\s+[`"]?[^`"\s(]+[`"]?/i, `CREATE TABLE "${plan.scratch}"`));
      }
    })();
    return {
      plans,
      tables: plans.map((plan) => new ProjectionTable(sqlite, plan.projection, plan.scratch)),
      rows: {
        loadMany: (table, keys) => new Map(keys.map((key) => [rowCacheId(table.tableName, key), table.load(key)])),
        upsertMany: (table, rows) => rows.forEach((row) => table.upsert(row)),
        delete: (table, key) => table.delete(key),
      },
    };
  }

  private recordVersion(projection: AnyRowProjection, through: number): void {
    this.sqlite
      .prepare(
        `INSERT INTO projection_versions (name, version, rebuilt_through, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET version = excluded.version, rebuilt_through = excluded.rebuilt_through, updated_at = excluded.updated_at`,
      )
      .run(projection.name, projection.version, through, this.now().toISOString());
  }
}
