import type { EventLog } from '../store/event-log.js';
import type { ProjectionQueries } from '../store/projection-queries.js';
import { createAccountImportStatusReadModels } from './account-import-status-read-models.js';
import { createAccountListReadModels } from './account-list-read-models.js';
import { createAccountReadModels } from './account-read-models.js';
import { createAccountRecordsExportReadModels } from './account-records-export-read-models.js';
import { createAccountRecordReadModels } from './account-record-read-models.js';
import { createBusinessReadModels } from './business-read-models.js';
import { createOperationalFigureReadModels } from './operational-figure-read-models.js';
import { createCustomerEmailReadModels } from './customer-email-read-models.js';
import { createPaymentInstructionReadModels } from './payment-instruction-read-models.js';
import { createImportProgressReadModels } from './import-progress-read-models.js';
import { createProductReadModels } from './product-read-models.js';
import { createStreamEventReadModels } from './stream-event-read-models.js';
import { createSupplyPointReadModels } from './supply-point-read-models.js';
import { createWebhookEndpointReadModels } from './webhook-endpoint-read-models.js';

/**
 * Queries over the projections: what the API and the CLI read, never folding streams. Written once against
 * the store's ports (`ProjectionQueries`, `EventLog`), so every store runs the same ones; one module per
 * feature, `ReadModels` the union of their interfaces.
 */
export function createReadModels(queries: ProjectionQueries, log: EventLog) {
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
    ...createWebhookEndpointReadModels(queries),
  };
}

export type ReadModels = ReturnType<typeof createReadModels>;
