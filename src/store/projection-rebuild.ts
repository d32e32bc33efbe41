import type Database from 'better-sqlite3';
import type { AnyRowProjection } from '../../projections/projection.js';
import { toReplayedEvent, type EventRow } from './event-stream.js';
import { openLogReader } from './log-reader.js';
import { CachedProjectionTables, ProjectionTable } from './projection-writer.js';
import { getTableName } from 'drizzle-orm';

export interface RebuildProgress {
  readonly eventsRead: number;
  readonly eventsTotal: number;
}

export interface RebuildOptions {
  /** Events replayed per write transaction. */
  readonly batchSize?: number;
  readonly onProgress?: (progress: RebuildProgress) => void;
  readonly now?: () => Date;
  /** Read the log in a worker thread (default: when the log holds `workerFromEvents` events or more, see log-reader.ts). */
  readonly readInWorker?: boolean;
  readonly workerFromEvents?: number;
}

export interface RebuildSummary {
  readonly projections: readonly string[];
  readonly eventsRead: number;
  readonly rowsWritten: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
}

export interface RowDifference {
  readonly projection: string;
  /** `live` rows missing from the rebuild, `rebuilt` rows missing from the live table. */
  readonly side: 'live' | 'rebuilt';
  readonly row: Record<string, unknown>;
}

const SCRATCH_SUFFIX = '__rebuild';

interface Plan {
  readonly projection: AnyRowProjection;
  readonly table: string;
  readonly scratch: string;
  readonly indexes: readonly string[];
}

/**
 * Replays the whole log into scratch copies of the projections' tables,
 * reading the log through a second, read-only connection (streamed, never
 * loaded whole) while the live tables keep serving. Returns once the scratch
 * tables hold everything up to the snapshot taken at the start; the caller
 * finishes with `swap` or `compare`, which catch up with later events first.
 * A crash at any point leaves the live tables as they were; leftover scratch
 * tables are dropped by the next run.
 */
function buildScratch(sqlite: Database.Database, projections: readonly AnyRowProjection[], options: RebuildOptions) {
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
  const cache = new CachedProjectionTables(tables, 10_000);
  const types = [...new Set(projections.flatMap((p) => p.handles))];
  const typeList = types.map(() => '?').join(', ');
  const columns = eventColumns(projections);
  const batchSize = options.batchSize ?? 10_000;

  const reader = openLogReader(sqlite, {
    types,
    withBulk: columns === '*',
    inWorker: options.readInWorker,
    workerFromEvents: options.workerFromEvents,
  });
  let eventsRead = 0;
  let through = 0;
  try {
    through = reader.through;
    const eventsTotal = reader.total;
    // One write transaction per `batchSize` events, fed by the reader's (smaller) batches.
    const replayBatch = sqlite.transaction(() => {
      let n = 0;
      while (n < batchSize) {
        const events = reader.next();
        if (events === null) break;
        for (const event of events) cache.apply(event);
        n += events.length;
      }
      cache.flush();
      return n;
    });
    for (;;) {
      const n = replayBatch();
      eventsRead += n;
      options.onProgress?.({ eventsRead, eventsTotal });
      if (n < batchSize) break;
    }
  } finally {
    reader.close();
  }

  /** Must run inside the caller's write transaction: replays what was appended since the snapshot. */
  const catchUp = () => {
    if (types.length === 0) return 0;
    const later = sqlite
      .prepare<unknown[], EventRow>(`SELECT ${columns} FROM events WHERE global_position > ? AND +type IN (${typeList}) ORDER BY global_position`)
      .all(through, ...types);
    for (const row of later) cache.apply(toReplayedEvent(row));
    cache.flush();
    through = sqlite.prepare<[], { p: number | null }>('SELECT MAX(global_position) AS p FROM events').get()?.p ?? through;
    eventsRead += later.length;
    return later.length;
  };
  return { plans, catchUp, eventsRead: () => eventsRead, through: () => through };
}

/** `projections rebuild`: rebuild into scratch tables, then swap them in with one transaction. */
export function rebuildProjections(
  sqlite: Database.Database,
  projections: readonly AnyRowProjection[],
  options: RebuildOptions = {},
): RebuildSummary {
  const started = performance.now();
  const scratch = buildScratch(sqlite, projections, options);
  let rowsWritten = 0;
  sqlite
    .transaction(() => {
      scratch.catchUp();
      const now = (options.now?.() ?? new Date()).toISOString();
      for (const plan of scratch.plans) {
        sqlite.exec(`DROP TABLE "${plan.table}"`);
        sqlite.exec(`ALTER TABLE "${plan.scratch}" RENAME TO "${plan.table}"`);
        for (const index of plan.indexes) sqlite.exec(index);
        rowsWritten += (sqlite.prepare(`SELECT COUNT(*) AS n FROM "${plan.table}"`).get() as { n: number }).n;
        recordVersion(sqlite, plan.projection, scratch.through(), now);
      }
    })
    .immediate();
  const seconds = (performance.now() - started) / 1000;
  return {
    projections: scratch.plans.map((p) => p.projection.name),
    eventsRead: scratch.eventsRead(),
    rowsWritten,
    seconds,
    eventsPerSecond: Math.round(scratch.eventsRead() / Math.max(seconds, 1e-9)),
  };
}

/** `projections verify`: rebuild into scratch tables and compare them row by row with the live ones. */
export function verifyProjections(
  sqlite: Database.Database,
  projections: readonly AnyRowProjection[],
  options: RebuildOptions & { maxDifferences?: number } = {},
): { differences: RowDifference[]; eventsRead: number } {
  const scratch = buildScratch(sqlite, projections, options);
  const differences: RowDifference[] = [];
  const limit = options.maxDifferences ?? 100;
  try {
    sqlite
      .transaction(() => {
        scratch.catchUp();
        for (const plan of scratch.plans) {
          const live = sqlite.prepare(`SELECT * FROM "${plan.table}" EXCEPT SELECT * FROM "${plan.scratch}" LIMIT ${limit}`).all();
          const rebuilt = sqlite.prepare(`SELECT * FROM "${plan.scratch}" EXCEPT SELECT * FROM "${plan.table}" LIMIT ${limit}`).all();
          for (const row of live) differences.push({ projection: plan.projection.name, side: 'live', row: row as Record<string, unknown> });
          for (const row of rebuilt) differences.push({ projection: plan.projection.name, side: 'rebuilt', row: row as Record<string, unknown> });
        }
      })
      .immediate();
  } finally {
    for (const plan of scratch.plans) sqlite.exec(`DROP TABLE IF EXISTS "${plan.scratch}"`);
  }
  return { differences, eventsRead: scratch.eventsRead() };
}

/**
 * The events columns to read. Unless a projection being rebuilt reads them,
 * the bulk fields (the staged payloads, most of the log's bytes, kept in the
 * last column) are not selected, so SQLite never loads them and
 * `toStoredEvent` reads them as `{}`.
 */
export function eventColumns(projections: readonly AnyRowProjection[]): string {
  if (projections.some((p) => p.readsElidedFields)) return '*';
  return 'global_position, stream_id, stream_position, type, schema_version, data, metadata, recorded_at';
}

function recordVersion(sqlite: Database.Database, projection: AnyRowProjection, through: number, now: string): void {
  sqlite
    .prepare(
      `INSERT INTO projection_versions (name, version, rebuilt_through, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET version = excluded.version, rebuilt_through = excluded.rebuilt_through, updated_at = excluded.updated_at`,
    )
    .run(projection.name, projection.version, through, now);
}

/**
 * The projections whose stored version differs from the declared one, or that
 * were never recorded while the log holds events they handle (a projection
 * added to an existing database). Records the version of the others.
 */
export function staleProjections(sqlite: Database.Database, projections: readonly AnyRowProjection[], now = new Date()): AnyRowProjection[] {
  const stored = new Map(
    sqlite
      .prepare<[], { name: string; version: number }>('SELECT name, version FROM projection_versions')
      .all()
      .map((r) => [r.name, r.version]),
  );
  const stale: AnyRowProjection[] = [];
  for (const projection of projections) {
    const version = stored.get(projection.name);
    if (version === projection.version) continue;
    if (version === undefined) {
      const types = projection.handles;
      const any =
        types.length > 0 &&
        sqlite.prepare(`SELECT 1 FROM events WHERE type IN (${types.map(() => '?').join(', ')}) LIMIT 1`).get(...types) !== undefined;
      const rows = (sqlite.prepare(`SELECT COUNT(*) AS n FROM "${getTableName(projection.table)}"`).get() as { n: number }).n;
      if (!any || rows > 0) {
        // Kept up to date inline since its table was created: record it as current.
        recordVersion(sqlite, projection, 0, now.toISOString());
        continue;
      }
    }
    stale.push(projection);
  }
  return stale;
}
