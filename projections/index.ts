import { accountHistoricalStatementsProjection } from './account-historical-statements.js';
import { accountImportProcessesProjection } from './account-import-processes.js';
import { accountImportProgressProjection } from './account-import-progress.js';
import { accountImportStatusesProjection } from './account-import-statuses.js';
import { accountLedgerTransactionsProjection } from './account-ledger-transactions.js';
import { accountLedgersProjection } from './account-ledgers.js';
import { accountNotesProjection } from './account-notes.js';
import { apiKeysProjection } from './api-keys.js';
import { businessContractsProjection } from './business-contracts.js';
import { businessPaymentInstructionsProjection } from './business-payment-instructions.js';
import { businessesProjection } from './businesses.js';
import { customerEmailsProjection } from './customer-emails.js';
import { importFailureSummaryProjection, importProgressCountsProjection } from './import-progress-tallies.js';
import { importSuppliersProjection } from './import-suppliers.js';
import { importActivityProjection, importThroughputProjection } from './import-throughput.js';
import { paymentInstructionsProjection } from './payment-instructions.js';
import { operationsTeamsProjection } from './operations-teams.js';
import type { AnyRowProjection } from './projection.js';
import { productsProjection } from './products.js';
import { serviceConfigProjection } from './service-config.js';
import { supplyPointsProjection } from './supply-points.js';
import { supplyPointPopulateBatchesProjection } from './supply-points-populate-batches.js';
import { supplyPointPopulateRequestsProjection } from './supply-points-populate-requests.js';
import { webhookEndpointsProjection } from './webhook-endpoints.js';

/** Every inline projection, updated in the transaction that appends the events it handles. */
export const inlineProjections: readonly AnyRowProjection[] = [
  importSuppliersProjection,
  operationsTeamsProjection,
  apiKeysProjection,
  accountImportProcessesProjection,
  accountImportStatusesProjection,
  productsProjection,
  serviceConfigProjection,
  supplyPointPopulateBatchesProjection,
  supplyPointPopulateRequestsProjection,
  supplyPointsProjection,
  businessesProjection,
  businessContractsProjection,
  businessPaymentInstructionsProjection,
  paymentInstructionsProjection,
  customerEmailsProjection,
  webhookEndpointsProjection,
  accountNotesProjection,
  accountLedgerTransactionsProjection,
  accountLedgersProjection,
  accountHistoricalStatementsProjection,
  // A migration's progress: the per-account rows, the tallies over them, the hour's throughput.
  accountImportProgressProjection,
  importProgressCountsProjection,
  importFailureSummaryProjection,
  importThroughputProjection,
  importActivityProjection,
];
