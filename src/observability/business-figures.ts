import type { SupplierFigures, OperationalFigureReadModels } from '../queries/operational-figure-read-models.js';

/**
 * The per-supplier business figures of the metrics (pending, imported,
 * failing), as one function so that their source can change in one place.
 * Today: counts over the account projections' rows (one index range per
 * supplier and state, so the cost grows with the accounts; the metrics read
 * them at most every 30 s). Issue 19 is building per-supplier progress
 * counters kept by a projection (constant time); once they land, this reads
 * those instead, and nothing else changes.
 */
export function businessFigures(read: Pick<OperationalFigureReadModels, 'supplierFigures'>): (limit: number) => Promise<readonly SupplierFigures[]> {
  return (limit) => read.supplierFigures(limit);
}
