import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { AnyRowProjection } from '../../projections/projection.js';
import type { LedgerDb } from './database.js';
import { applyRowProjection } from './sqlite-event-store.js';

/**
 * Folds stored events, in global order, into the projection tables of `db`
 * (expected to be empty). The same code path as the inline projections, so a
 * replay of the log must reproduce the live tables row for row.
 */
export function replayProjections(
  db: LedgerDb,
  events: Iterable<StoredEvent<LedgerEvent>>,
  projections: readonly AnyRowProjection[],
): number {
  let count = 0;
  for (const stored of events) {
    for (const projection of projections) {
      if (projection.handles.includes(stored.event.type)) applyRowProjection(db, projection, stored);
    }
    count++;
  }
  return count;
}
