import type Database from 'better-sqlite3';
import { getTableName } from 'drizzle-orm';
import type { AnyRowProjection } from '../../../projections/projection.js';
import { toReplayedEvent, eventColumns, type EventRow } from '../event-codec.js';
import type { EventLog } from '../event-log.js';
import type { StoredLedgerEvent } from '../event-store.js';
import {
  rebuildSummary,
  staleProjections,
  type ProjectionMaintenance,
  type RebuildOptions,
  type RebuildSummary,
  type RowDifference,
  type VerifyResult,
} from '../projection-maintenance.js';
import { CachedProjectionTables, linkTallies, ProjectionTable } from './projection-writer.js';
import { withTallyPartners } from '../tallies.js';

const SCRATCH_SUFFIX = '__rebuild';
/** Events replayed per write of the scratch tables; also the size of the rebuild's row cache. */
const DEFAULT_REPLAY_BATCH = 10_000;
/** Events read (parsed and alive) at a time. */
const READ_BATCH = 2_000;

interface Plan {
  readonly projection: AnyRowProjection;
  readonly table: string;
  readonly scratch: string;
  readonly indexes: readonly string[];
}

/** Whether a rebuild of these projections must read the events' bulk fields. */
const readsBulk = (projections: readonly AnyRowProjection[]) => projections.some((p) => p.readsElidedFields);

/**
 * Rebuild and verify on SQLite. The log is read through the log reader (its
 * own read-only connection and snapshot, in a worker thread for big logs)
 * while the live tables keep serving; the scratch tables are written on the
 * service's connection in synchronous transactions of 10,000 events, and
 * the catch-up and swap run in one `BEGIN IMMEDIATE` transaction, which holds
 * every other writer off.
 */
export class SqliteProjectionMaintenance implements ProjectionMaintenance {
  constructor(
    private readonly sqlite: Database.Database,
    private readonly log: EventLog,
    private readonly now: () => Date,
    private readonly replayBatch = DEFAULT_REPLAY_BATCH,
  ) {}

  async rebuild(chosen: readonly AnyRowProjection[], options: RebuildOptions = {}): Promise<RebuildSummary> {
    const started = performance.now();
    const projections = withTallyPartners(chosen);
    const scratch = await this.buildScratch(projections, options);
    let rowsWritten = 0;
    this.sqlite
      .transaction(() => {
        scratch.catchUp();
        const now = this.now().toISOString();
        for (const plan of scratch.plans) {
          this.sqlite.exec(`DROP TABLE "${plan.table}"`);
          this.sqlite.exec(`ALTER TABLE "${plan.scratch}" RENAME TO "${plan.table}"`);
          for (const index of plan.indexes) this.sqlite.exec(index);
          rowsWritten += (this.sqlite.prepare(`SELECT COUNT(*) AS n FROM "${plan.table}"`).get() as { n: number }).n;
          this.recordVersion(plan.projection, scratch.through(), now);
        }
      })
      .immediate();
    return rebuildSummary(projections, scratch.eventsRead(), rowsWritten, started);
  }

  /** One SQLite server per file: the check and the rebuild need no lock of their own. */
  async rebuildStale(
    projections: readonly AnyRowProjection[],
    options: RebuildOptions & { onStale?: (stale: readonly AnyRowProjection[]) => void } = {},
  ): Promise<RebuildSummary | null> {
    const stale = await this.stale(projections);
    if (stale.length === 0) return null;
    options.onStale?.(stale);
    return this.rebuild(stale, options);
  }

  async verify(chosen: readonly AnyRowProjection[], options: RebuildOptions & { maxDifferences?: number } = {}): Promise<VerifyResult> {
    const projections = withTallyPartners(chosen);
    const scratch = await this.buildScratch(projections, options);
    const differences: RowDifference[] = [];
    const limit = options.maxDifferences ?? 100;
    try {
      this.sqlite
        .transaction(() => {
          scratch.catchUp();
          for (const plan of scratch.plans) {
            const live = this.sqlite.prepare(`SELECT * FROM "${plan.table}" EXCEPT SELECT * FROM "${plan.scratch}" LIMIT ${limit}`).all();
            const rebuilt = this.sqlite.prepare(`SELECT * FROM "${plan.scratch}" EXCEPT SELECT * FROM "${plan.table}" LIMIT ${limit}`).all();
            for (const row of live) differences.push({ projection: plan.projection.name, side: 'live', row: row as Record<string, unknown> });
            for (const row of rebuilt) differences.push({ projection: plan.projection.name, side: 'rebuilt', row: row as Record<string, unknown> });
          }
        })
        .immediate();
    } finally {
      for (const plan of scratch.plans) this.sqlite.exec(`DROP TABLE IF EXISTS "${plan.scratch}"`);
    }
    return { differences, eventsRead: scratch.eventsRead() };
  }

  async stale(projections: readonly AnyRowProjection[]): Promise<AnyRowProjection[]> {
    const stored = new Map(
      this.sqlite
        .prepare<[], { name: string; version: number }>('SELECT name, version FROM projection_versions')
        .all()
        .map((r) => [r.name, r.version]),
    );
    return staleProjections(stored, projections, {
      hasRows: (projection) => this.sqlite.prepare(`SELECT 1 FROM "${getTableName(projection.table)}" LIMIT 1`).get() !== undefined,
      logHolds: (types) =>
        this.sqlite.prepare(`SELECT 1 FROM events WHERE type IN (${types.map(() => '?').join(', ')}) LIMIT 1`).get(...types) !== undefined,
      recordCurrent: (projection) => this.recordVersion(projection, 0, this.now().toISOString()),
    });
  }

  /**
   * Replays the log up to a snapshot into scratch copies of the projections'
   * tables. Returns once the scratch tables hold everything up to the
   * snapshot taken at the start; the caller finishes with a swap or a
   * comparison inside one immediate transaction, after `catchUp` replayed
   * what was appended since. Leftover scratch tables of a crashed run are
   * dropped here.
   */
  private async buildScratch(projections: readonly AnyRowProjection[], options: RebuildOptions) {
    const sqlite = this.sqlite;
    const plans: Plan[] = projections.map((projection) => {
      const table = getTableName(projection.table);
      const indexes = sqlite
        .prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
        .all(table)
        .map((r) => r.sql);
      return { projection, table, scratch: `${table}${SCRATCH_SUFFIX}`, indexes };
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

    const tables = plans.map((plan) => new ProjectionTable(sqlite, plan.projection, plan.scratch));
    linkTallies(tables);
    const cache = new CachedProjectionTables(tables, this.replayBatch);
    const types = [...new Set(projections.flatMap((p) => p.handles))];
    const withBulkFields = readsBulk(projections);

    // Read in batches of at most 2,000 events (only those are parsed and alive at a time), applied as
    // they arrive; the rows they change stay in the cache and are written once per `replayBatch` events.
    const snapshot = await this.log.open({ types, withBulkFields, count: true, batchSize: Math.min(READ_BATCH, this.replayBatch) });
    let eventsRead = 0;
    let through = snapshot.through;
    const eventsTotal = snapshot.total ?? 0;
    let unflushed = 0;
    // Each batch in one synchronous transaction: the cache's reads of the scratch tables share it, and
    // every `replayBatch` events it also writes the changed rows.
    const replay = sqlite.transaction((events: readonly StoredLedgerEvent[], flush: boolean) => {
      for (const event of events) cache.apply(event);
      if (flush) cache.flush();
    });
    try {
      for await (const events of snapshot) {
        unflushed += events.length;
        const flush = unflushed >= this.replayBatch;
        replay(events, flush);
        if (flush) unflushed = 0;
        eventsRead += events.length;
        options.onProgress?.({ eventsRead, eventsTotal });
      }
      if (unflushed > 0) replay([], true);
    } finally {
      await snapshot.close();
    }
    if (eventsRead === 0) options.onProgress?.({ eventsRead, eventsTotal });

    /** Must run inside the caller's write transaction: replays what was appended since the snapshot. */
    const catchUp = () => {
      if (types.length === 0) return 0;
      const later = sqlite
        .prepare<unknown[], EventRow>(
          `SELECT ${eventColumns(withBulkFields)} FROM events WHERE global_position > ? AND +type IN (${types.map(() => '?').join(', ')}) ORDER BY global_position`,
        )
        .all(through, ...types);
      for (const row of later) cache.apply(toReplayedEvent(row));
      cache.flush();
      through = sqlite.prepare<[], { p: number | null }>('SELECT MAX(global_position) AS p FROM events').get()?.p ?? through;
      eventsRead += later.length;
      return later.length;
    };
    return { plans, catchUp, eventsRead: () => eventsRead, through: () => through };
  }

  private recordVersion(projection: AnyRowProjection, through: number, now: string): void {
    this.sqlite
      .prepare(
        `INSERT INTO projection_versions (name, version, rebuilt_through, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET version = excluded.version, rebuilt_through = excluded.rebuilt_through, updated_at = excluded.updated_at`,
      )
      .run(projection.name, projection.version, through, now);
  }
}
