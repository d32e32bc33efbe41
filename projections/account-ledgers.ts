import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { assertNever } from '../src/domain/assert-never.js';
import { balanceEffectCents } from '../src/domain/ledger/ledger-transaction.js';
import { defineProjection } from './projection.js';

/**
 * One row per account that has ledger transactions: the balance the customer
 * owes (integer cents; negative is in credit), the signed sum of every
 * transaction's balance effect, and how many transactions make it.
 * WITHOUT ROWID on SQLite (small rows: an insert writes one b-tree), which only its migration says.
 */
export const accountLedgers = sqliteTable(
  'account_ledgers',
  {
    importSupplier: text('import_supplier').notNull(),
    externalAccountNumber: text('external_account_number').notNull(),
    balanceCents: integer('balance_cents').notNull(),
    transactionCount: integer('transaction_count').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.importSupplier, t.externalAccountNumber] })],
);
export type AccountLedgerRow = typeof accountLedgers.$inferSelect;

export const accountLedgersProjection = defineProjection({
  name: 'account_ledgers',
  version: 1,
  table: accountLedgers,
  handles: ['LedgerTransactionAdded'],
  keyOf: ({ event }) => ({ importSupplier: event.data.importSupplier, externalAccountNumber: event.data.externalAccountNumber }),
  evolve(row, { event }) {
    if (event.type !== 'LedgerTransactionAdded') return assertNever(event.type);
    const tx = event.data.transaction;
    return {
      importSupplier: event.data.importSupplier,
      externalAccountNumber: event.data.externalAccountNumber,
      balanceCents: (row?.balanceCents ?? 0) + balanceEffectCents(tx.type, tx.amountCents),
      transactionCount: (row?.transactionCount ?? 0) + 1,
      updatedAt: event.data.addedAt,
    };
  },
});
