import { and, asc, eq } from 'drizzle-orm';
import { ledgerTransactionSchema, type LedgerTransaction } from '../../events/account-records.js';
import { accountHistoricalStatements, type AccountHistoricalStatementRow } from '../../projections/account-historical-statements.js';
import { accountLedgerTransactions } from '../../projections/account-ledger-transactions.js';
import { accountLedgers } from '../../projections/account-ledgers.js';
import { accountNotes, type AccountNoteRow } from '../../projections/account-notes.js';
import type { LedgerDb } from '../store/database.js';

/** One line of an account ledger: the transaction, what it did to the balance, and the balance after it. */
export interface LedgerLine {
  readonly transaction: LedgerTransaction;
  readonly balanceEffectCents: number;
  readonly runningBalanceCents: number;
  readonly addedAt: string;
}

export interface AccountLedgerView {
  /** What the customer owes, in cents (negative: in credit). */
  readonly balanceCents: number;
  /** In date order; transactions of one date in the order they were added. */
  readonly lines: readonly LedgerLine[];
}

/** Queries over the post-import records of an account: notes, ledger, historical statements. */
export interface AccountRecordReadModels {
  listAccountNotes(importSupplier: string, externalAccountNumber: string): Promise<AccountNoteRow[]>;
  accountLedger(importSupplier: string, externalAccountNumber: string): Promise<AccountLedgerView>;
  listHistoricalStatements(importSupplier: string, externalAccountNumber: string): Promise<AccountHistoricalStatementRow[]>;
}

export function createSqliteAccountRecordReadModels(db: LedgerDb): AccountRecordReadModels {
  return {
    async listAccountNotes(importSupplier, externalAccountNumber) {
      return db
        .select()
        .from(accountNotes)
        .where(and(eq(accountNotes.importSupplier, importSupplier), eq(accountNotes.externalAccountNumber, externalAccountNumber)))
        .orderBy(asc(accountNotes.sequence))
        .all();
    },
    async accountLedger(importSupplier, externalAccountNumber) {
      const rows = db
        .select()
        .from(accountLedgerTransactions)
        .where(
          and(
            eq(accountLedgerTransactions.importSupplier, importSupplier),
            eq(accountLedgerTransactions.externalAccountNumber, externalAccountNumber),
          ),
        )
        .orderBy(asc(accountLedgerTransactions.transactionDate), asc(accountLedgerTransactions.position))
        .all();
      const summary = db
        .select({ balanceCents: accountLedgers.balanceCents })
        .from(accountLedgers)
        .where(and(eq(accountLedgers.importSupplier, importSupplier), eq(accountLedgers.externalAccountNumber, externalAccountNumber)))
        .get();
      let running = 0;
      const lines = rows.map((row) => {
        running += row.balanceEffectCents;
        return {
          // Stored JSON is a trust boundary: parsed, not cast.
          transaction: ledgerTransactionSchema.parse(JSON.parse(row.transaction)),
          balanceEffectCents: row.balanceEffectCents,
          runningBalanceCents: running,
          addedAt: row.addedAt,
        };
      });
      return { balanceCents: summary?.balanceCents ?? 0, lines };
    },
    async listHistoricalStatements(importSupplier, externalAccountNumber) {
      return db
        .select()
        .from(accountHistoricalStatements)
        .where(
          and(
            eq(accountHistoricalStatements.importSupplier, importSupplier),
            eq(accountHistoricalStatements.externalAccountNumber, externalAccountNumber),
          ),
        )
        .orderBy(asc(accountHistoricalStatements.billPeriodFromDate), asc(accountHistoricalStatements.statementId))
        .all();
    },
  };
}
