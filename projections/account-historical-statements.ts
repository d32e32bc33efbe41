import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { recordSources } from '../events/account-records.js';
import { defineProjection } from './projection.js';

/**
 * One row per historical statement of an imported account (spec 4.11, and the staged payload's statements
 * at process time); statement_id is unique per account. WITHOUT ROWID on SQLite (small rows: an insert
 * writes one b-tree), which only its migration says.
 */
export const accountHistoricalStatements = sqliteTable(
  'account_historical_statements',
  {
    importSupplier: text('import_supplier').notNull(),
    externalAccountNumber: text('external_account_number').notNull(),
    statementId: text('statement_id').notNull(),
    billPeriodFromDate: text('bill_period_from_date').notNull(),
    billPeriodToDate: text('bill_period_to_date').notNull(),
    issuedDate: text('issued_date'),
    number: text('number'),
    grossAmountCents: integer('gross_amount_cents'),
    statementPath: text('statement_path'),
    source: text('source', { enum: recordSources }).notNull(),
    importedAt: text('imported_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.importSupplier, t.externalAccountNumber, t.statementId] })],
);
export type AccountHistoricalStatementRow = typeof accountHistoricalStatements.$inferSelect;

export const accountHistoricalStatementsProjection = defineProjection(accountHistoricalStatements)({
  name: 'account_historical_statements',
  version: 1,
  keyOf: ({ event }) => ({ importSupplier: event.data.importSupplier, externalAccountNumber: event.data.externalAccountNumber, statementId: event.data.statementId }),
  evolve: { HistoricalStatementImported: (row, { event }) => row ?? { ...event.data } },
});
