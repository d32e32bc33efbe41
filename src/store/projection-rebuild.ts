import type { AnyRowProjection, StoredLedgerEvent } from '../../projections/projection.js';
import type { EventLog } from './event-log.js';
import { op, type Op, type Procedure } from './procedure.js';
import {
  refuseVersionsAhead,
  type ProjectionMaintenance,
  type RebuildOptions,
  type RebuildSummary,
  type RowDifference,
  type VerifyResult,
} from './projection-maintenance.js';
import { linkTallies, ReplayCache, type LinkedTable, type ReplayRows } from './projection-replay.js';
import { withTallyPartners } from './tallies.js';

/** Events replayed per write of the scratch tables; also the size of the replay's row cache. */
const DEFAULT_REPLAY_BATCH = 10_000;
/** Events read (parsed and alive) at a time. */
const READ_BATCH = 2_000;

/** Empty copies of the projections' tables (same columns and primary key) a rebuild replays the log into. */
export interface Scratch<T extends LinkedTable<T>> {
  /** The writers of the scratch tables, and how their rows are read and written. */
  readonly tables: readonly T[];
  readonly rows: ReplayRows<T>;
  /** Puts each scratch table in its live table's place, recording it rebuilt through `through`; the rows they hold. */
  swap(through: number): Op<number>;
  /** The rows of each live table missing from its scratch table and the other way round, at most `limit` each way. */
  differences(limit: number): Op<RowDifference[]>;
  drop(): Promise<void>;
}

/** A rebuild's connection to the store: its SQL and transactions. */
export interface RebuildSession<T extends LinkedTable<T>> {
  /** Creates the scratch tables, dropping those a crashed run left. */
  createScratch(projections: readonly AnyRowProjection[]): Promise<Scratch<T>>;
  /** Runs a step of the replay into the scratch tables. */
  replay(step: Procedure<void>): Promise<void>;
  /** Runs `procedure` in one transaction that holds every writer off; a try that gave way calls `undo` before the next. */
  underWriteLock<R>(procedure: () => Procedure<R>, undo: () => void): Promise<R>;
  eventsAfter(position: number, types: readonly string[], withBulkFields: boolean): Op<StoredLedgerEvent[]>;
  lastPosition(): Op<number | null>;
}

/**
 * Rebuild and verify, the same procedure on every store (the port's comment says what it guarantees): the
 * log is read through one snapshot of the log reader and replayed into scratch tables, then one short
 * transaction under the writers' lock catches up with what was appended meanwhile and swaps the tables in
 * (or compares them with the live ones). A store gives its SQL and transactions.
 */
export abstract class ProjectionRebuild implements ProjectionMaintenance {
  constructor(
    private readonly log: EventLog,
    private readonly replayBatch = DEFAULT_REPLAY_BATCH,
  ) {}

  /** The recorded version of each projection, by name. */
  protected abstract storedVersions(): Promise<ReadonlyMap<string, number>>;
  protected abstract hasRows(projection: AnyRowProjection): Promise<boolean>;
  protected abstract logHolds(types: readonly string[]): Promise<boolean>;
  protected abstract recordCurrent(projection: AnyRowProjection): Promise<void>;
  /** Runs `work` as the only check-and-rebuild on the database at a time. */
  protected abstract oneAtATime<R>(work: () => Promise<R>): Promise<R>;
  protected abstract withSession<R>(use: <T extends LinkedTable<T>>(session: RebuildSession<T>) => Promise<R>): Promise<R>;

  /**
   * The table is looked at before the log: the log has no index on the type, so it is searched only for
   * an empty table.
   */
  async stale(projections: readonly AnyRowProjection[]): Promise<AnyRowProjection[]> {
    const stored = await this.storedVersions();
    refuseVersionsAhead(stored, projections);
    const stale: AnyRowProjection[] = [];
    for (const projection of projections) {
      const version = stored.get(projection.name);
      if (version === projection.version) continue;
      if (version === undefined && ((await this.hasRows(projection)) || projection.handles.length === 0 || !(await this.logHolds(projection.handles)))) {
        // Kept inline since its table was created.
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
        return yield* op(replayed.scratch.swap(replayed.through()));
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
    return this.withSession(async (session) => {
      const replayed = await this.replay(session, projections, options);
      try {
        const differences = await session.underWriteLock(function* () {
          yield* replayed.catchUp();
          return yield* op(replayed.scratch.differences(options.maxDifferences ?? 100));
        }, replayed.undo);
        return { differences, eventsRead: replayed.eventsRead() };
      } finally {
        await replayed.scratch.drop();
      }
    });
  }

  /**
   * Replays the log up to the snapshot taken at the start into new scratch tables, in batches of at most
   * `READ_BATCH` events (only those are parsed and alive at a time); the rows they change stay in the cache
   * and are written once per `replayBatch` events. `catchUp` replays what was appended since, in the
   * caller's transaction under the writers' lock; `undo` forgets a catch-up whose transaction rolled back.
   */
  private async replay<T extends LinkedTable<T>>(session: RebuildSession<T>, projections: readonly AnyRowProjection[], options: RebuildOptions) {
    const scratch = await session.createScratch(projections);
    linkTallies(scratch.tables);
    const cache = new ReplayCache(scratch.tables, scratch.rows, this.replayBatch);
    const types = [...new Set(projections.flatMap((p) => p.handles))];
    const withBulkFields = projections.some((p) => p.readsElidedFields);
    const step = function* (events: readonly StoredLedgerEvent[], flush: boolean) {
      yield* cache.apply(events);
      if (flush) yield* cache.flush();
    };
    const snapshot = await this.log.open({ types, withBulkFields, count: true, batchSize: Math.min(READ_BATCH, this.replayBatch) });
    const eventsTotal = snapshot.total ?? 0;
    let through = snapshot.through;
    let eventsRead = 0;
    let unflushed = 0;
    try {
      for await (const events of snapshot) {
        unflushed += events.length;
        const flush = unflushed >= this.replayBatch;
        await session.replay(step(events, flush));
        if (flush) unflushed = 0;
        eventsRead += events.length;
        options.onProgress?.({ eventsRead, eventsTotal });
      }
      if (unflushed > 0) await session.replay(step([], true));
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
        const later = yield* op(session.eventsAfter(through, types, withBulkFields));
        yield* step(later, true);
        through = (yield* op(session.lastPosition())) ?? through;
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
