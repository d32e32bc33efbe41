import { getTableName } from 'drizzle-orm';
import type { AnyRowProjection, StoredLedgerEvent } from '../../projections/projection.js';
import type { EventLog } from './event-log.js';
import { op, type Op, type Procedure } from './procedure.js';
import { refuseVersionsAhead, type ProjectionMaintenance, type RebuildOptions, type RebuildSummary, type RowDifference, type VerifyResult } from './projection-maintenance.js';
import { linkTallies, ReplayCache, type LinkedTable, type ReplayRows } from './projection-replay.js';
import { quote, type Row } from './projection-rows.js';
import { withTallyPartners } from './tallies.js';

/** Events replayed per write of the scratch tables; also the size of the replay's row cache. */
const DEFAULT_REPLAY_BATCH = 10_000;
/** Events read (parsed and alive) at a time. */
const READ_BATCH = 2_000;

/** A projection's live table and its scratch copy (same columns and primary key), which a rebuild replays the log into. */
export interface ScratchPlan {
  readonly projection: AnyRowProjection;
  readonly table: string;
  readonly scratch: string;
  /** The statements that restore what else the live table had, once the scratch table took its place: its indexes. */
  readonly restore: readonly string[];
}

export interface Scratch<T extends LinkedTable<T>> {
  readonly plans: readonly ScratchPlan[];
  readonly tables: readonly T[];
  readonly rows: ReplayRows<T>;
}

/** A rebuild's connection to the store: its SQL and its transactions. */
export interface RebuildSession<T extends LinkedTable<T>> {
  /** Runs one statement without parameters; its rows. */
  all(sql: string): Op<Row[]>;
  /** Creates the scratch tables, dropping those a crashed run left. */
  createScratch(projections: readonly AnyRowProjection[]): Promise<Scratch<T>>;
  /** Runs a step of the replay into the scratch tables. */
  replay(step: Procedure<void>): Promise<void>;
  /** Runs `procedure` in one transaction that holds every writer off; a try that gave way calls `undo` before the next. */
  underWriteLock<R>(procedure: () => Procedure<R>, undo: () => void): Promise<R>;
  /** The events of `types` after `position`, without their bulk fields: no projection reads them. */
  eventsAfter(position: number, types: readonly string[]): Op<StoredLedgerEvent[]>;
  /** Records `projection` as rebuilt through `through`, in the swap's transaction. */
  recordRebuilt(projection: AnyRowProjection, through: number): Op<void>;
}

/**
 * Rebuild and verify, one procedure for every store (the port says what it guarantees): the log is read
 * through one snapshot of the log reader and replayed into scratch tables, then one short transaction
 * under the writers' lock catches up with what was appended meanwhile and swaps the tables in, or compares
 * them with the live ones. A store gives its SQL and its transactions.
 */
export abstract class ProjectionRebuild implements ProjectionMaintenance {
  constructor(
    private readonly log: EventLog,
    private readonly replayBatch = DEFAULT_REPLAY_BATCH,
  ) {}

  /** Runs one statement without parameters outside any rebuild; its rows. */
  protected abstract query(sql: string): Promise<Row[]>;
  protected abstract logHolds(types: readonly string[]): Promise<boolean>;
  protected abstract recordCurrent(projection: AnyRowProjection): Promise<void>;
  /** Runs `work` as the only check-and-rebuild on the database at a time. */
  protected abstract oneAtATime<R>(work: () => Promise<R>): Promise<R>;
  protected abstract withSession<R>(use: <T extends LinkedTable<T>>(session: RebuildSession<T>) => Promise<R>): Promise<R>;

  /** The table is looked at before the log: the log has no index on the type, so it is searched only for an empty table. */
  async stale(projections: readonly AnyRowProjection[]): Promise<AnyRowProjection[]> {
    const stored = new Map((await this.query('SELECT name, version FROM projection_versions')).map((r) => [r['name'] as string, Number(r['version'])]));
    refuseVersionsAhead(stored, projections);
    const stale: AnyRowProjection[] = [];
    for (const projection of projections) {
      const version = stored.get(projection.name);
      if (version === projection.version) continue;
      const hasRows = async () => (await this.query(`SELECT 1 FROM ${quote(getTableName(projection.table))} LIMIT 1`)).length > 0;
      // Never recorded, and kept inline since its table was created.
      if (version === undefined && ((await hasRows()) || projection.handles.length === 0 || !(await this.logHolds(projection.handles)))) {
        await this.recordCurrent(projection);
      } else {
        stale.push(projection);
      }
    }
    return stale;
  }

  async rebuild(chosen: readonly AnyRowProjection[], options: RebuildOptions = {}): Promise<RebuildSummary> {
    const started = performance.now();
    const projections = withTallyPartners(chosen);
    return this.withSession(async (session) => {
      const replayed = await this.replay(session, projections, options);
      const rowsWritten = await session.underWriteLock(function* () {
        yield* replayed.catchUp();
        let rows = 0;
        for (const { projection, table, scratch, restore } of replayed.scratch.plans) {
          const swap = [`DROP TABLE ${quote(table)}`, `ALTER TABLE ${quote(scratch)} RENAME TO ${quote(table)}`, ...restore];
          for (const statement of swap) yield* op(session.all(statement));
          const [count] = yield* op(session.all(`SELECT count(*) AS n FROM ${quote(table)}`));
          rows += Number(count!['n']);
          yield* op(session.recordRebuilt(projection, replayed.through()));
        }
        return rows;
      }, replayed.undo);
      const seconds = (performance.now() - started) / 1000;
      const eventsRead = replayed.eventsRead();
      return {
        projections: projections.map((p) => p.name),
        eventsRead,
        rowsWritten,
        seconds,
        eventsPerSecond: Math.round(eventsRead / Math.max(seconds, 1e-9)),
      };
    });
  }

  async rebuildStale(
    projections: readonly AnyRowProjection[],
    options: RebuildOptions & { onStale?: (stale: readonly AnyRowProjection[]) => void } = {},
  ): Promise<RebuildSummary | null> {
    return this.oneAtATime(async () => {
      const stale = await this.stale(projections);
      if (stale.length === 0) return null;
      options.onStale?.(stale);
      return this.rebuild(stale, options);
    });
  }

  async verify(chosen: readonly AnyRowProjection[], options: RebuildOptions & { maxDifferences?: number } = {}): Promise<VerifyResult> {
    const projections = withTallyPartners(chosen);
    const limit = options.maxDifferences ?? 100;
    return this.withSession(async (session) => {
      const replayed = await this.replay(session, projections, options);
      const except = (a: string, b: string) => op(session.all(`SELECT * FROM ${quote(a)} EXCEPT SELECT * FROM ${quote(b)} LIMIT ${limit}`));
      try {
        const differences = await session.underWriteLock(function* () {
          yield* replayed.catchUp();
          const found: RowDifference[] = [];
          for (const { projection, table, scratch } of replayed.scratch.plans) {
            for (const row of yield* except(table, scratch)) found.push({ projection: projection.name, side: 'live', row });
            for (const row of yield* except(scratch, table)) found.push({ projection: projection.name, side: 'rebuilt', row });
          }
          return found;
        }, replayed.undo);
        return { differences, eventsRead: replayed.eventsRead() };
      } finally {
        for (const { scratch } of replayed.scratch.plans) await session.all(`DROP TABLE IF EXISTS ${quote(scratch)}`);
      }
    });
  }

  /**
   * Replays the log up to the snapshot taken at the start into new scratch tables, `READ_BATCH` events at
   * most read at a time (only those are parsed and alive); the rows they change stay in the cache and are
   * written once per `replayBatch` events. `catchUp` replays what was appended since, in the caller's
   * transaction under the writers' lock; `undo` forgets a catch-up whose transaction rolled back.
   */
  private async replay<T extends LinkedTable<T>>(session: RebuildSession<T>, projections: readonly AnyRowProjection[], options: RebuildOptions) {
    const scratch = await session.createScratch(projections);
    linkTallies(scratch.tables);
    const cache = new ReplayCache(scratch.tables, scratch.rows, this.replayBatch);
    const types = [...new Set(projections.flatMap((p) => p.handles))];
    const snapshot = await this.log.open({ types, withBulkFields: false, count: true, batchSize: Math.min(READ_BATCH, this.replayBatch) });
    const eventsTotal = snapshot.total ?? 0;
    let through = snapshot.through;
    let eventsRead = 0;
    let unflushed = 0;
    try {
      for await (const events of snapshot) {
        unflushed += events.length;
        const flush = unflushed >= this.replayBatch;
        await session.replay(cache.apply(events, flush));
        if (flush) unflushed = 0;
        eventsRead += events.length;
        options.onProgress?.({ eventsRead, eventsTotal });
      }
      if (unflushed > 0) await session.replay(cache.apply([], true));
    } finally {
      await snapshot.close();
    }
    if (eventsRead === 0) options.onProgress?.({ eventsRead, eventsTotal });

    let saved = { through, eventsRead };
    return {
      scratch,
      catchUp: function* (): Procedure<void> {
        saved = { through, eventsRead };
        if (types.length === 0) return;
        const later = yield* op(session.eventsAfter(through, types));
        yield* cache.apply(later, true);
        const [last] = yield* op(session.all('SELECT max(global_position) AS p FROM events'));
        through = Number(last?.['p'] ?? through);
        eventsRead += later.length;
      },
      undo: () => {
        ({ through, eventsRead } = saved);
        cache.clear();
      },
      eventsRead: () => eventsRead,
      through: () => through,
    };
  }
}
