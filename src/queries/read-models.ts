import type { LedgerDb } from '../store/database.js';
import { createSqliteAccountReadModels, type AccountReadModels } from './account-read-models.js';
import { createSqliteBusinessReadModels, type BusinessReadModels } from './business-read-models.js';
import { createSqliteProductReadModels, type ProductReadModels } from './product-read-models.js';
import { createSqliteSupplyPointReadModels, type SupplyPointReadModels } from './supply-point-read-models.js';

/**
 * Queries over the projections: what the API and the CLI read. They never
 * fold streams. Asynchronous so that a PostgreSQL implementation can follow.
 * One module per feature; this interface is their union.
 */
export interface ReadModels extends AccountReadModels, BusinessReadModels, SupplyPointReadModels, ProductReadModels {}

export function createSqliteReadModels(db: LedgerDb): ReadModels {
  return {
    ...createSqliteAccountReadModels(db),
    ...createSqliteBusinessReadModels(db),
    ...createSqliteSupplyPointReadModels(db),
    ...createSqliteProductReadModels(db),
  };
}
