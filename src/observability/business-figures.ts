import type { SupplierFigures, OperationalFigureReadModels } from '../queries/operational-figure-read-models.js';

/**
 * The per-supplier business figures of the metrics (pending, imported,
 * failing), as one function so that their source can change in one place.
 * They are the per-supplier progress counters (the
 * import_progress_counts tally): one row a supplier, constant time whatever
 * the number of accounts, the same figures as the progress endpoint.
 */
export function businessFigures(read: Pick<OperationalFigureReadModels, 'supplierFigures'>): (limit: number) => Promise<readonly SupplierFigures[]> {
  return (limit) => read.supplierFigures(limit);
}
