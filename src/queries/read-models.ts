import type { EventLog } from '../store/event-log.js';
import type { ProjectionQueries } from '../store/projection-queries.js';
import { createAccountImportStatusReadModels, type AccountImportStatusReadModels } from './account-import-status-read-models.js';
import { createAccountListReadModels, type AccountListReadModels } from './account-list-read-models.js';
import { createAccountReadModels, type AccountReadModels } from './account-read-models.js';
import { createAccountRecordsExportReadModels, type AccountRecordsExportReadModels } from './account-records-export-read-models.js';
import { createAccountRecordReadModels, type AccountRecordReadModels } from './account-record-read-models.js';
import { createBusinessReadModels, type BusinessReadModels } from './business-read-models.js';
import { createOperationalFigureReadModels, type OperationalFigureReadModels } from './operational-figure-read-models.js';
import { createCustomerEmailReadModels, type CustomerEmailReadModels } from './customer-email-read-models.js';
import { createPaymentInstructionReadModels, type PaymentInstructionReadModels } from './payment-instruction-read-models.js';
import { createImportProgressReadModels, type ImportProgressReadModels } from './import-progress-read-models.js';
import { createProductReadModels, type ProductReadModels } from './product-read-models.js';
import { createStreamEventReadModels, type StreamEventReadModels } from './stream-event-read-models.js';
import { createSupplyPointReadModels, type SupplyPointReadModels } from './supply-point-read-models.js';

/**
 * Queries over the projections: what the API and the CLI read, never folding streams. Written once against
 * the store's ports (`ProjectionQueries`, `EventLog`), so every store runs the same ones; one module per
 * feature, this interface their union.
 */
export interface ReadModels
  extends AccountReadModels,
    AccountListReadModels,
    AccountImportStatusReadModels,
    ImportProgressReadModels,
    BusinessReadModels,
    SupplyPointReadModels,
    ProductReadModels,
    PaymentInstructionReadModels,
    CustomerEmailReadModels,
    AccountRecordReadModels,
    AccountRecordsExportReadModels,
    StreamEventReadModels,
    OperationalFigureReadModels {}

export function createReadModels(queries: ProjectionQueries, log: EventLog): ReadModels {
  return {
    ...createAccountReadModels(queries),
    ...createAccountListReadModels(queries),
    ...createAccountImportStatusReadModels(queries),
    ...createImportProgressReadModels(queries),
    ...createBusinessReadModels(queries),
    ...createSupplyPointReadModels(queries),
    ...createProductReadModels(queries),
    ...createPaymentInstructionReadModels(queries),
    ...createCustomerEmailReadModels(queries),
    ...createAccountRecordReadModels(queries),
    ...createAccountRecordsExportReadModels(queries),
    ...createStreamEventReadModels(log),
    ...createOperationalFigureReadModels(queries),
  };
}
