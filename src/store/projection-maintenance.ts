import type { AnyRowProjection } from '../../projections/projection.js';
import { StoreUnavailableError } from './event-store.js';

export interface RebuildProgress {
  readonly eventsRead: number;
  readonly eventsTotal: number;
}

export interface RebuildOptions {
  readonly onProgress?: (progress: RebuildProgress) => void;
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

export interface VerifyResult {
  readonly differences: readonly RowDifference[];
  readonly eventsRead: number;
}

/**
 * Rebuilding and verifying the read models from the log (a port). A rebuild
 * replays a consistent snapshot of the log into scratch tables while the live
 * ones keep serving, catches up with what was appended meanwhile and swaps
 * them in under the writers' lock; a crash at any point leaves the live tables
 * as they were. Verify rebuilds into scratch tables and compares them row by
 * row with the live ones.
 */
export interface ProjectionMaintenance {
  /**
   * The projections whose recorded version differs from the declared one, or never recorded while the log
   * holds events they handle (one added to an existing database); records the others as current. Throws
   * `ProjectionVersionAheadError` for one recorded at a higher version: a newer build ran on the database,
   * and rebuilding would undo its work.
   */
  stale(projections: readonly AnyRowProjection[]): Promise<AnyRowProjection[]>;
  rebuild(projections: readonly AnyRowProjection[], options?: RebuildOptions): Promise<RebuildSummary>;
  /**
   * Rebuilds those of `projections` that are stale, the check and the rebuild one step for every process on
   * the database (of instances starting together one rebuilds, the others find nothing stale). `onStale`
   * hears which before the rebuild starts; null when none was.
   */
  rebuildStale(
    projections: readonly AnyRowProjection[],
    options?: RebuildOptions & { onStale?: (stale: readonly AnyRowProjection[]) => void },
  ): Promise<RebuildSummary | null>;
  verify(projections: readonly AnyRowProjection[], options?: RebuildOptions & { maxDifferences?: number }): Promise<VerifyResult>;
}

/** A projection the database holds at a higher version than this build declares. */
export interface ProjectionAhead {
  readonly name: string;
  readonly stored: number;
  readonly declared: number;
}

/**
 * This instance is older than the database: a newer build rebuilt some
 * projections at versions this one does not know. It refuses to start, and on
 * PostgreSQL its writer refuses every batch (a rolling deploy: the old
 * instances stop writing rows the new projections would not make, and their
 * requests go to new instances on retry). A deliberate downgrade runs
 * `import-ledger projections rebuild` with the older build.
 */
export class ProjectionVersionAheadError extends StoreUnavailableError {
  constructor(readonly ahead: readonly ProjectionAhead[]) {
    super(
      `this instance is older than the database: ${ahead.map((a) => `projection ${a.name} is at version ${a.stored}, this build has ${a.declared}`).join('; ')}; ` +
        'upgrade it (or, to downgrade on purpose, run `import-ledger projections rebuild` with this build)',
    );
    this.name = 'ProjectionVersionAheadError';
  }
}

export function refuseVersionsAhead(stored: ReadonlyMap<string, number>, projections: readonly Pick<AnyRowProjection, 'name' | 'version'>[]): void {
  const ahead = projections.flatMap((p) => {
    const version = stored.get(p.name);
    return version !== undefined && version > p.version ? [{ name: p.name, stored: version, declared: p.version }] : [];
  });
  if (ahead.length > 0) throw new ProjectionVersionAheadError(ahead);
}
