import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { transferStatuses } from '../events/account-import-process.js';
import { accountImportOperations, isAccountImportOperation, type AccountImportOperation } from '../events/import-attempt.js';
import { accountKey, defineProjection } from './projection.js';

/** Where an account stands in its supplier's migration. */
const progressStates = ['PENDING', 'IMPORTED', 'SKIPPED'] as const;

/** The step a refused attempt was: a stage, or a process (v1, v2 scheduled or its run). */
export const failureSteps = ['stage', 'process'] as const;
type FailureStep = (typeof failureSteps)[number];

interface FailureItem {
  readonly code: string;
  readonly attr: string | null;
}

/**
 * One row per account a supplier's migration has seen (staged, or tried and refused): where it stands and,
 * while it is failing, its latest refusal. It is failing while pending and its latest stage or process was
 * refused (a refused record import is not the account's import failing); a later stage, process, successful dry run or skip clears that. WITHOUT ROWID on SQLite (small
 * rows: an insert writes one b-tree), which only its migration says.
 */
export const accountImportProgressTable = sqliteTable(
  'account_import_progress',
  {
    importSupplier: text('import_supplier').notNull(),
    externalAccountNumber: text('external_account_number').notNull(),
    /** PENDING also holds an account whose stages were all refused (it was never staged). */
    state: text('state', { enum: progressStates }).notNull(),
    /** The imported account's transfer status; null before it is imported. */
    transferStatus: text('transfer_status', { enum: transferStatuses }),
    /** The failure: all null while the account is not failing. */
    failureStep: text('failure_step', { enum: failureSteps }),
    failureOperation: text('failure_operation', { enum: accountImportOperations }),
    failureCode: text('failure_code'),
    failureErrors: text('failure_errors', { mode: 'json' }).$type<FailureItem[]>(),
    /** The top-level and item codes between spaces (` a b `): what `?code=` matches, on either store. */
    failureCodes: text('failure_codes'),
    failedAt: text('failed_at'),
    /** The refusal's global position: the failures list's order and cursor (an account keeps it until it fails again). */
    failedPosition: integer('failed_position'),
  },
  (t) => [
    primaryKey({ columns: [t.importSupplier, t.externalAccountNumber] }),
    index('account_import_progress_failures_idx').on(t.importSupplier, t.failedPosition),
  ],
);
export type AccountImportProgressRow = typeof accountImportProgressTable.$inferSelect;

type Row = AccountImportProgressRow;

const cleared = {
  failureStep: null,
  failureOperation: null,
  failureCode: null,
  failureErrors: null,
  failureCodes: null,
  failedAt: null,
  failedPosition: null,
} as const satisfies Partial<Row>;

/** The account's row, or the one of an account seen for the first time. */
const current = (row: Row | null, data: { importSupplier: string; externalAccountNumber: string }): Row =>
  row ?? { importSupplier: data.importSupplier, externalAccountNumber: data.externalAccountNumber, state: 'PENDING', transferStatus: null, ...cleared };

const stepOf = (operation: AccountImportOperation): FailureStep => (operation === 'stage' ? 'stage' : 'process');

export const accountImportProgressProjection = defineProjection(accountImportProgressTable)({
  name: 'account_import_progress',
  version: 1,
  keyOf: ({ event }) => accountKey(event.data),
  evolve: {
    AccountStaged: (row, { event }) => ({ ...current(row, event.data), ...cleared }),
    AccountRestaged: (row, { event }) => ({ ...current(row, event.data), ...cleared }),
    AccountProcessed: (row, { event }) => ({ ...current(row, event.data), ...cleared, state: 'IMPORTED', transferStatus: 'PENDING' }),
    AccountMarkedToSkip: (row, { event }) => ({ ...current(row, event.data), ...cleared, state: 'SKIPPED' }),
    AccountTransferStatusChanged: (row, { event }) => ({ ...current(row, event.data), transferStatus: event.data.to }),
    AccountProcessDryRunSucceeded: (row) => row && { ...row, ...cleared },
    AccountImportAttemptRefused(row, { event, globalPosition }) {
      // A refused record import (notes, transactions, ...) is no failure of the account's import.
      const { operation } = event.data;
      if (!isAccountImportOperation(operation)) return row;
      const base = current(row, event.data);
      // An imported or skipped account is done with: a refused attempt on it is no failure of the migration.
      if (base.state !== 'PENDING') return row;
      const codes = new Set([event.data.code, ...event.data.errors.map((e) => e.code)]);
      return {
        ...base,
        failureStep: stepOf(operation),
        failureOperation: operation,
        failureCode: event.data.code,
        failureErrors: event.data.errors.map((e) => ({ code: e.code, attr: e.attr })),
        failureCodes: ` ${[...codes].join(' ')} `,
        failedAt: event.data.refusedAt,
        failedPosition: globalPosition,
      };
    },
  },
});
