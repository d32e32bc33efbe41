import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ledgerTransactionTypes } from '../events/account-records.js';
import { balanceEffectCents } from '../src/domain/ledger/ledger-transaction.js';
import { defineProjection } from './projection.js';

/**
 * The account ledger (spec 4.10): one row per transaction of an imported account, read in date order (ties
 * in the order they were added, `position`) with the running balance summed from `balance_effect_cents`.
 * A transaction_id appears at most once per account: it is in the primary key.
 */
export const accountLedgerTransactions = sqliteTable(
  'account_ledger_transactions',
  {
    importSupplier: text('import_supplier').notNull(),
    externalAccountNumber: text('external_account_number').notNull(),
    transactionId: text('transaction_id').notNull(),
    /** Global position of the event that added it: the order of addition, stable on replay. */
    position: integer('position').notNull(),
    type: text('type', { enum: ledgerTransactionTypes }).notNull(),
    transactionDate: text('transaction_date').notNull(),
    originalTransactionDate: text('original_transaction_date'),
    amountCents: integer('amount_cents').notNull(),
    /** What it does to the balance the customer owes: + for charges, supply charges, repayments; - for credits, payments. */
    balanceEffectCents: integer('balance_effect_cents').notNull(),
    /** The whole transaction as recorded (JSON of the event's `transaction`). */
    transaction: text('transaction').notNull(),
    addedAt: text('added_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.importSupplier, t.externalAccountNumber, t.transactionId] }),
    index('account_ledger_transactions_date_idx').on(t.importSupplier, t.externalAccountNumber, t.transactionDate, t.position),
  ],
);

export const accountLedgerTransactionsProjection = defineProjection(accountLedgerTransactions)({
  name: 'account_ledger_transactions',
  version: 1,
  keyOf: ({ event }) => ({ importSupplier: event.data.importSupplier, externalAccountNumber: event.data.externalAccountNumber, transactionId: event.data.transaction.transactionId }),
  evolve: {
    LedgerTransactionAdded(row, { event, globalPosition }) {
      // The decider never adds an id twice; should the log ever hold it twice, the first one stands.
      if (row) return row;
      const tx = event.data.transaction;
      return {
        importSupplier: event.data.importSupplier,
        externalAccountNumber: event.data.externalAccountNumber,
        transactionId: tx.transactionId,
        position: globalPosition,
        type: tx.type,
        transactionDate: tx.transactionDate,
        originalTransactionDate: tx.originalTransactionDate,
        amountCents: tx.amountCents,
        balanceEffectCents: balanceEffectCents(tx.type, tx.amountCents),
        transaction: JSON.stringify(tx),
        addedAt: event.data.addedAt,
      };
    },
  },
});
