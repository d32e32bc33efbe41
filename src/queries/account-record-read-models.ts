import { asc } from 'drizzle-orm';
import { ledgerTransactionSchema, type LedgerTransaction } from '../../events/account-records.js';
import { accountHistoricalStatements, type AccountHistoricalStatementRow } from '../../projections/account-historical-statements.js';
import { accountLedgerTransactions } from '../../projections/account-ledger-transactions.js';
import { accountLedgers } from '../../projections/account-ledgers.js';
import { accountNotes, type AccountNoteRow } from '../../projections/account-notes.js';
import type { ProjectionQueries } from '../store/projection-queries.js';
import { ofAccount } from './account-list-read-models.js';

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

export function createAccountRecordReadModels(q: ProjectionQueries): AccountRecordReadModels {
  const t = accountLedgerTransactions;
  const s = accountHistoricalStatements;
  return {
    listAccountNotes: (importSupplier, externalAccountNumber) =>
      q.list(accountNotes, { where: ofAccount(accountNotes, importSupplier, externalAccountNumber), orderBy: [asc(accountNotes.sequence)] }),
    async accountLedger(importSupplier, externalAccountNumber) {
      const rows = await q.list(t, { where: ofAccount(t, importSupplier, externalAccountNumber), orderBy: [asc(t.transactionDate), asc(t.position)] });
      const summary = await q.one(accountLedgers, ofAccount(accountLedgers, importSupplier, externalAccountNumber));
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
    listHistoricalStatements: (importSupplier, externalAccountNumber) =>
      q.list(s, { where: ofAccount(s, importSupplier, externalAccountNumber), orderBy: [asc(s.billPeriodFromDate), asc(s.statementId)] }),
  };
}
