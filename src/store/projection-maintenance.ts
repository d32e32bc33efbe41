import type { AnyRowProjection } from '../../projections/projection.js';

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
   * The projections whose recorded version differs from the declared one, or
   * that were never recorded while the log holds events they handle (a
   * projection added to an existing database). Records the others as current.
   */
  stale(projections: readonly AnyRowProjection[]): Promise<AnyRowProjection[]>;
  rebuild(projections: readonly AnyRowProjection[], options?: RebuildOptions): Promise<RebuildSummary>;
  /**
   * Rebuilds those of `projections` that are stale, the check and the rebuild
   * as one step for every process on the database (instances starting
   * together: one rebuilds, the others then find nothing stale). `onStale`
   * hears which ones before the rebuild starts. Null when none was stale.
   */
  rebuildStale(
    projections: readonly AnyRowProjection[],
    options?: RebuildOptions & { onStale?: (stale: readonly AnyRowProjection[]) => void },
  ): Promise<RebuildSummary | null>;
  verify(projections: readonly AnyRowProjection[], options?: RebuildOptions & { maxDifferences?: number }): Promise<VerifyResult>;
}

/** The summary of a rebuild that started at `started` (performance.now()). */
export function rebuildSummary(projections: readonly AnyRowProjection[], eventsRead: number, rowsWritten: number, started: number): RebuildSummary {
  const seconds = (performance.now() - started) / 1000;
  return {
    projections: projections.map((p) => p.name),
    eventsRead,
    rowsWritten,
    seconds,
    eventsPerSecond: Math.round(eventsRead / Math.max(seconds, 1e-9)),
  };
}
