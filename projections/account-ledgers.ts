import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { balanceEffectCents } from '../src/domain/ledger/ledger-transaction.js';
import { accountKey, defineProjection } from './projection.js';

/**
 * One row per account that has ledger transactions: the balance the customer owes (integer cents; negative
 * is in credit), the signed sum of every transaction's balance effect, and how many transactions make it.
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

export const accountLedgersProjection = defineProjection(accountLedgers)({
  name: 'account_ledgers',
  version: 1,
  keyOf: ({ event }) => accountKey(event.data),
  evolve: {
    LedgerTransactionAdded: (row, { event }) => ({
      importSupplier: event.data.importSupplier,
      externalAccountNumber: event.data.externalAccountNumber,
      balanceCents: (row?.balanceCents ?? 0) + balanceEffectCents(event.data.transaction.type, event.data.transaction.amountCents),
      transactionCount: (row?.transactionCount ?? 0) + 1,
      updatedAt: event.data.addedAt,
    }),
  },
});
