import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { AnyRowProjection } from '../../projections/projection.js';
import type { LedgerDb } from './database.js';
import { CachedProjectionTables, ProjectionTable } from './projection-writer.js';

/**
 * Folds stored events, in global order, into the projection tables of `db`
 * (expected to be empty), with the same keyOf/evolve as the inline path, so a
 * replay of the log must reproduce the live tables row for row.
 */
export function replayProjections(
  db: LedgerDb,
  events: Iterable<StoredEvent<LedgerEvent>>,
  projections: readonly AnyRowProjection[],
): number {
  const sqlite = db.$client;
  const cache = new CachedProjectionTables(projections.map((projection) => new ProjectionTable(sqlite, projection)));
  let count = 0;
  sqlite.transaction(() => {
    for (const stored of events) {
      cache.apply(stored);
      count++;
    }
    cache.flush();
  })();
  return count;
}
