import { accountImportProcessesProjection } from './account-import-processes.js';
import { apiKeysProjection } from './api-keys.js';
import { importSuppliersProjection } from './import-suppliers.js';
import { operationsTeamsProjection } from './operations-teams.js';
import type { AnyRowProjection } from './projection.js';
import { serviceConfigProjection } from './service-config.js';

/** Every inline projection, updated in the transaction that appends the events it handles. */
export const inlineProjections: readonly AnyRowProjection[] = [
  importSuppliersProjection,
  operationsTeamsProjection,
  apiKeysProjection,
  accountImportProcessesProjection,
  serviceConfigProjection,
];
