import { createSqliteFeedReadModels, type FeedReadModels } from '../feed/event-feed.js';
import type { LedgerDb } from '../store/database.js';
import { createSqliteAccountReadModels, type AccountReadModels } from './account-read-models.js';
import { createSqliteAccountRecordReadModels, type AccountRecordReadModels } from './account-record-read-models.js';
import { createSqliteBusinessReadModels, type BusinessReadModels } from './business-read-models.js';
import { createSqliteCustomerEmailReadModels, type CustomerEmailReadModels } from './customer-email-read-models.js';
import { createSqlitePaymentInstructionReadModels, type PaymentInstructionReadModels } from './payment-instruction-read-models.js';
import { createSqliteProductReadModels, type ProductReadModels } from './product-read-models.js';
import { createSqliteSupplyPointReadModels, type SupplyPointReadModels } from './supply-point-read-models.js';

/**
 * Queries over the projections: what the API and the CLI read. They never
 * fold streams. Asynchronous so that a PostgreSQL implementation can follow.
 * One module per feature; this interface is their union.
 */
export interface ReadModels
  extends AccountReadModels,
    BusinessReadModels,
    SupplyPointReadModels,
    ProductReadModels,
    PaymentInstructionReadModels,
    CustomerEmailReadModels,
    AccountRecordReadModels,
    FeedReadModels {}

export function createSqliteReadModels(db: LedgerDb): ReadModels {
  const supplyPoints = createSqliteSupplyPointReadModels(db);
  return {
    ...createSqliteFeedReadModels(db, supplyPoints.findPopulateBatch),
    ...createSqliteAccountReadModels(db),
    ...createSqliteBusinessReadModels(db),
    ...supplyPoints,
    ...createSqliteProductReadModels(db),
    ...createSqlitePaymentInstructionReadModels(db),
    ...createSqliteCustomerEmailReadModels(db),
    ...createSqliteAccountRecordReadModels(db),
  };
}
