import { ne, sql } from 'drizzle-orm';
import { accountHistoricalStatements } from '../../projections/account-historical-statements.js';
import { accountLedgerTransactions } from '../../projections/account-ledger-transactions.js';
import { accountNotes } from '../../projections/account-notes.js';
import { paymentInstructions } from '../../projections/payment-instructions.js';
import type { ProjectionQueries, SelectedRow, SelectFields } from '../store/projection-queries.js';
import { ofAccount } from './account-list-read-models.js';

const n = accountNotes;
const x = accountLedgerTransactions;
const s = accountHistoricalStatements;
const p = paymentInstructions;

/** Per kind of record: its table and the fields the export compares, each row naming its account. */
const kinds = {
  notes: { table: n, fields: { externalAccountNumber: n.externalAccountNumber, body: n.body } },
  transactions: { table: x, fields: { externalAccountNumber: x.externalAccountNumber, transactionId: x.transactionId, amountCents: x.amountCents, type: x.type } },
  statements: {
    table: s,
    fields: {
      externalAccountNumber: s.externalAccountNumber,
      statementId: s.statementId,
      billPeriodFromDate: s.billPeriodFromDate,
      billPeriodToDate: s.billPeriodToDate,
      grossAmountCents: s.grossAmountCents,
    },
  },
  paymentInstructions: { table: p, fields: { externalAccountNumber: p.externalAccountNumber, reference: p.reference, vendor: p.vendor, type: p.type } },
} satisfies Record<string, { table: typeof n | typeof x | typeof s | typeof p; fields: SelectFields }>;
type Kind = keyof typeof kinds;
const kindNames = Object.keys(kinds) as Kind[];

/** The records of some accounts, each row naming its account: what the records export groups per account. */
export type AccountRecordRows = { readonly [K in Kind]: SelectedRow<(typeof kinds)[K]['fields']>[] };

export interface AccountRecordsExportReadModels {
  /**
   * The records of the supplier's accounts `externalAccountNumbers` (a chunk of the export, or one account):
   * per account and kind, one lookup on the table's primary key prefix (supplier, account), the one plan
   * whatever the planner knows of the table. A read of a whole chunk in one statement (a join on the chunk's
   * range of the lists' order, or a list of its accounts) leaves the planner a choice, and on a PostgreSQL
   * that never analyzed the tables it takes the supplier's rows for a few: it read all the supplier's
   * records for every chunk (a second a chunk of 100 at a million accounts). Notes the ledger pins itself
   * (moved transactions) are left out: no source sends them.
   */
  accountRecordsOf(importSupplier: string, externalAccountNumbers: readonly string[]): Promise<AccountRecordRows>;
}

export function createAccountRecordsExportReadModels(q: ProjectionQueries): AccountRecordsExportReadModels {
  const reads = kindNames.map((kind) => {
    const { table, fields } = kinds[kind];
    const sourceSent = table === n ? sql` AND ${ne(n.source, 'transaction_import')}` : sql``;
    return q.prepareSelect(fields as SelectFields, sql`FROM ${table} WHERE ${ofAccount(table, sql.placeholder('supplier'), sql.placeholder('ext'))}${sourceSent}`);
  });
  return {
    async accountRecordsOf(importSupplier, externalAccountNumbers) {
      const perAccount = await Promise.all(externalAccountNumbers.map((ext) => Promise.all(reads.map((read) => read({ supplier: importSupplier, ext })))));
      return Object.fromEntries(kindNames.map((kind, i) => [kind, perAccount.flatMap((rows) => rows[i]!)])) as AccountRecordRows;
    },
  };
}
