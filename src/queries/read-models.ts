import type { LedgerDb } from '../store/database.js';
import { createSqliteAccountReadModels, type AccountReadModels } from './account-read-models.js';

/**
 * Queries over the projections: what the API and the CLI read. They never
 * fold streams. Asynchronous so that a PostgreSQL implementation can follow.
 * One module per feature; this interface is their union.
 */
export interface ReadModels extends AccountReadModels {}

export function createSqliteReadModels(db: LedgerDb): ReadModels {
  return {
    ...createSqliteAccountReadModels(db),
  };
}
