import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { accountImportProgressProjection, type AccountImportProgressRow } from './account-import-progress.js';
import { defineTally } from './projection.js';

/**
 * A supplier's migration in numbers, one row per supplier seen: accounts per state, those failing (some of
 * the pending ones), the imported ones per transfer status. A tally over account_import_progress, so the
 * progress endpoint reads one row whatever the cohort's size.
 */
export const importProgressCountsTable = sqliteTable('import_progress_counts', {
  importSupplier: text('import_supplier').primaryKey(),
  total: integer('total').notNull(),
  pending: integer('pending').notNull(),
  imported: integer('imported').notNull(),
  skipped: integer('skipped').notNull(),
  failing: integer('failing').notNull(),
  transferPending: integer('transfer_pending').notNull(),
  transferInProgress: integer('transfer_in_progress').notNull(),
  transferRejected: integer('transfer_rejected').notNull(),
  transferCompleted: integer('transfer_completed').notNull(),
});
export type ImportProgressCountsRow = typeof importProgressCountsTable.$inferSelect;

const transferColumn = {
  UNKNOWN: null,
  PENDING: 'transferPending',
  IN_PROGRESS: 'transferInProgress',
  REJECTED: 'transferRejected',
  COMPLETED: 'transferCompleted',
} as const;

const stateColumn = { PENDING: 'pending', IMPORTED: 'imported', SKIPPED: 'skipped' } as const;

export const importProgressCountsProjection = defineTally({
  name: 'import_progress_counts',
  version: 1,
  table: importProgressCountsTable,
  source: accountImportProgressProjection,
  counts: ['total', 'pending', 'imported', 'skipped', 'failing', 'transferPending', 'transferInProgress', 'transferRejected', 'transferCompleted'],
  contributions(row: AccountImportProgressRow) {
    const counts: Partial<Record<Exclude<keyof ImportProgressCountsRow, 'importSupplier'>, number>> = { total: 1, [stateColumn[row.state]]: 1 };
    if (row.failedPosition !== null) counts.failing = 1;
    const transfer = row.state === 'IMPORTED' && row.transferStatus ? transferColumn[row.transferStatus] : null;
    if (transfer) counts[transfer] = 1;
    return [{ key: { importSupplier: row.importSupplier }, counts }];
  },
});

/**
 * What a supplier's failing accounts fail on: per error code and `attr` ('' for none: a key column cannot
 * be null), the failing accounts whose latest refusal has that item (one without items counts under its
 * code). Largest first through its index; a tally over account_import_progress.
 */
export const importFailureSummaryTable = sqliteTable(
  'import_failure_summary',
  {
    importSupplier: text('import_supplier').notNull(),
    code: text('code').notNull(),
    attr: text('attr').notNull(),
    accounts: integer('accounts').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.importSupplier, t.code, t.attr] }),
    index('import_failure_summary_accounts_idx').on(t.importSupplier, t.accounts, t.code, t.attr),
  ],
);
export type ImportFailureSummaryRow = typeof importFailureSummaryTable.$inferSelect;

export const importFailureSummaryProjection = defineTally({
  name: 'import_failure_summary',
  version: 1,
  table: importFailureSummaryTable,
  source: accountImportProgressProjection,
  counts: ['accounts'],
  contributions(row: AccountImportProgressRow) {
    if (row.failedPosition === null || row.failureCode === null) return [];
    const items = row.failureErrors?.length ? row.failureErrors : [{ code: row.failureCode, attr: null }];
    // An account counts once per code and path, however many of its items share them.
    const pairs = new Map(items.map((item) => [JSON.stringify([item.code, item.attr ?? '']), { code: item.code, attr: item.attr ?? '' }]));
    return [...pairs.values()].map((pair) => ({ key: { importSupplier: row.importSupplier, ...pair }, counts: { accounts: 1 } }));
  },
});
