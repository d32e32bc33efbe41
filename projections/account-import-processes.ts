import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { transferStatuses } from '../events/account-import-process.js';
import { accountKey, defineProjection } from './projection.js';

const importProcessStates = ['STAGED', 'SKIPPED', 'IMPORTED'] as const;
export type ImportProcessState = (typeof importProcessStates)[number];

/**
 * One row per account import process: what the pending, imported and all
 * lists and the transfer-status endpoint read.
 */
export const accountImportProcesses = sqliteTable(
  'account_import_processes',
  {
    importSupplier: text('import_supplier').notNull(),
    externalAccountNumber: text('external_account_number').notNull(),
    state: text('state', { enum: importProcessStates }).notNull(),
    platformAccountNumber: text('platform_account_number'),
    operationsTeamName: text('operations_team_name'),
    /** The business contract the processed account is linked to (spec 1.5); null when none. */
    businessContractIdentifier: text('business_contract_identifier'),
    platformBusinessId: integer('platform_business_id'),
    transferStatus: text('transfer_status', { enum: transferStatuses }).notNull(),
    stageCount: integer('stage_count').notNull(),
    firstStagedAt: text('first_staged_at').notNull(),
    lastStagedAt: text('last_staged_at').notNull(),
    accountCreatedAt: text('account_created_at'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.importSupplier, t.externalAccountNumber] }),
    uniqueIndex('account_import_processes_platform_account_number_unique').on(t.platformAccountNumber),
    // The lists and the reconciliation export are read in keyset order (first staging, then external account
    // number): one index range per chunk, for one state (pending, imported) or for every state (all, export).
    index('account_import_processes_list_idx').on(t.importSupplier, t.state, t.firstStagedAt, t.externalAccountNumber),
    index('account_import_processes_order_idx').on(t.importSupplier, t.firstStagedAt, t.externalAccountNumber),
  ],
);
export type AccountImportProcessRow = typeof accountImportProcesses.$inferSelect;

export const accountImportProcessesProjection = defineProjection(accountImportProcesses)({
  name: 'account_import_processes',
  version: 2,
  keyOf: ({ event }) => accountKey(event.data),
  evolve: {
    AccountStaged: (_row, { event }) => ({
      importSupplier: event.data.importSupplier, externalAccountNumber: event.data.externalAccountNumber,
      state: 'STAGED',
      platformAccountNumber: null,
      operationsTeamName: null,
      businessContractIdentifier: null,
      platformBusinessId: null,
      transferStatus: 'UNKNOWN',
      stageCount: 1,
      firstStagedAt: event.data.stagedAt,
      lastStagedAt: event.data.stagedAt,
      accountCreatedAt: null,
      updatedAt: event.data.stagedAt,
    }),
    AccountRestaged: (row, { event }) =>
      row && { ...row, stageCount: row.stageCount + 1, lastStagedAt: event.data.stagedAt, updatedAt: event.data.stagedAt },
    AccountProcessed: (row, { event }) =>
      row && {
        ...row,
        state: 'IMPORTED',
        platformAccountNumber: event.data.platformAccountNumber,
        operationsTeamName: event.data.operationsTeamName,
        businessContractIdentifier: event.data.businessContractIdentifier ?? null,
        platformBusinessId: event.data.platformBusinessId ?? null,
        transferStatus: 'PENDING',
        accountCreatedAt: event.data.processedAt,
        updatedAt: event.data.processedAt,
      },
    AccountMarkedToSkip: (row, { event }) => row && { ...row, state: 'SKIPPED', updatedAt: event.data.markedAt },
    AccountTransferStatusChanged: (row, { event }) => row && { ...row, transferStatus: event.data.to, updatedAt: event.data.changedAt },
  },
});
