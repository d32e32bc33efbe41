import { and, eq, ne, sql, type SQL } from 'drizzle-orm';
import { accountHistoricalStatements } from '../../projections/account-historical-statements.js';
import { accountImportProcesses } from '../../projections/account-import-processes.js';
import { accountLedgerTransactions } from '../../projections/account-ledger-transactions.js';
import { accountNotes } from '../../projections/account-notes.js';
import { paymentInstructions } from '../../projections/payment-instructions.js';
import type { ProjectionQueries, SelectedRow, SelectFields } from '../store/projection-queries.js';
import { keysetParams, preparedByShape, sameAccount, type KeysetRange } from './account-list-read-models.js';

const t = accountImportProcesses;
const n = accountNotes;
const x = accountLedgerTransactions;
const s = accountHistoricalStatements;
const p = paymentInstructions;

const noteFields = { externalAccountNumber: n.externalAccountNumber, body: n.body } satisfies SelectFields;
const transactionFields = { externalAccountNumber: x.externalAccountNumber, transactionId: x.transactionId, amountCents: x.amountCents, type: x.type } satisfies SelectFields;
const statementFields = {
  externalAccountNumber: s.externalAccountNumber,
  statementId: s.statementId,
  billPeriodFromDate: s.billPeriodFromDate,
  billPeriodToDate: s.billPeriodToDate,
  grossAmountCents: s.grossAmountCents,
} satisfies SelectFields;
const instructionFields = { externalAccountNumber: p.externalAccountNumber, reference: p.reference, vendor: p.vendor, type: p.type } satisfies SelectFields;

/** The records of a run of accounts, each row naming its account: what the records export groups per account. */
export interface AccountRecordRows {
  readonly notes: SelectedRow<typeof noteFields>[];
  readonly transactions: SelectedRow<typeof transactionFields>[];
  readonly statements: SelectedRow<typeof statementFields>[];
  readonly paymentInstructions: SelectedRow<typeof instructionFields>[];
}

export interface AccountRecordsExportReadModels {
  /**
   * The records of the supplier's accounts in `range` (the accounts a chunk of the reconciliation read
   * returned: its `through` is the chunk's last account), four bounded reads joined on the lists' index.
   * Notes the ledger pins itself (moved transactions) are left out: no source sends them.
   */
  accountRecordsInRange(importSupplier: string, range: KeysetRange): Promise<AccountRecordRows>;
  /** The same records of one account. */
  accountRecordsOf(importSupplier: string, externalAccountNumber: string): Promise<AccountRecordRows>;
}

export function createAccountRecordsExportReadModels(q: ProjectionQueries): AccountRecordsExportReadModels {
  const fromJoined = (table: typeof n | typeof x | typeof s | typeof p, where: SQL) => {
    const sourceSent = table === n ? sql` AND ${ne(n.source, 'transaction_import')}` : sql``;
    return sql`FROM ${table} JOIN ${t} ON ${sameAccount(table)} WHERE ${where}${sourceSent}`;
  };
  const inRange = {
    notes: preparedByShape(q, noteFields, (where) => fromJoined(n, where)),
    transactions: preparedByShape(q, transactionFields, (where) => fromJoined(x, where)),
    statements: preparedByShape(q, statementFields, (where) => fromJoined(s, where)),
    paymentInstructions: preparedByShape(q, instructionFields, (where) => fromJoined(p, where)),
  };
  const oneAccount = and(eq(t.importSupplier, sql.placeholder('supplier')), eq(t.externalAccountNumber, sql.placeholder('ext')))!;
  const ofAccount = {
    notes: q.prepareSelect(noteFields, fromJoined(n, oneAccount)),
    transactions: q.prepareSelect(transactionFields, fromJoined(x, oneAccount)),
    statements: q.prepareSelect(statementFields, fromJoined(s, oneAccount)),
    paymentInstructions: q.prepareSelect(instructionFields, fromJoined(p, oneAccount)),
  };
  return {
    async accountRecordsInRange(importSupplier, range) {
      const shape = { state: false, after: range.after !== null, through: range.through !== null };
      const params = keysetParams(importSupplier, null, range);
      const [notes, transactions, statements, instructions] = await Promise.all([
        inRange.notes(shape)(params),
        inRange.transactions(shape)(params),
        inRange.statements(shape)(params),
        inRange.paymentInstructions(shape)(params),
      ]);
      return { notes, transactions, statements, paymentInstructions: instructions };
    },
    async accountRecordsOf(importSupplier, externalAccountNumber) {
      const params = { supplier: importSupplier, ext: externalAccountNumber };
      const [notes, transactions, statements, instructions] = await Promise.all([
        ofAccount.notes(params),
        ofAccount.transactions(params),
        ofAccount.statements(params),
        ofAccount.paymentInstructions(params),
      ]);
      return { notes, transactions, statements, paymentInstructions: instructions };
    },
  };
}
