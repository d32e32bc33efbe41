import { ne, sql, type SQL } from 'drizzle-orm';
import { accountHistoricalStatements } from '../../projections/account-historical-statements.js';
import { accountImportProcesses } from '../../projections/account-import-processes.js';
import { accountLedgerTransactions } from '../../projections/account-ledger-transactions.js';
import { accountNotes } from '../../projections/account-notes.js';
import { paymentInstructions } from '../../projections/payment-instructions.js';
import type { ProjectionQueries, SelectedRow, SelectFields } from '../store/projection-queries.js';
import { keysetRead, ofAccount, sameAccount, type KeysetRange } from './account-list-read-models.js';

const t = accountImportProcesses;
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

/** The records of a run of accounts, each row naming its account: what the records export groups per account. */
export type AccountRecordRows = { readonly [K in Kind]: SelectedRow<(typeof kinds)[K]['fields']>[] };

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
  const fromJoined = (table: (typeof kinds)[Kind]['table'], where: SQL) => {
    const sourceSent = table === n ? sql` AND ${ne(n.source, 'transaction_import')}` : sql``;
    return sql`FROM ${table} JOIN ${t} ON ${sameAccount(table)} WHERE ${where}${sourceSent}`;
  };
  const oneAccount = ofAccount(t, sql.placeholder('supplier'), sql.placeholder('ext'));
  const reads = kindNames.map((kind) => {
    const { table, fields } = kinds[kind];
    return {
      inRange: keysetRead(q, fields as SelectFields, (where) => fromJoined(table, where)),
      ofAccount: q.prepareSelect(fields as SelectFields, fromJoined(table, oneAccount)),
    };
  });
  const gather = async (read: (r: (typeof reads)[number]) => Promise<unknown[]>) => {
    const rows = await Promise.all(reads.map(read));
    return Object.fromEntries(kindNames.map((kind, i) => [kind, rows[i]])) as AccountRecordRows;
  };
  return {
    accountRecordsInRange: (importSupplier, range) => gather((r) => r.inRange(importSupplier, null, range)),
    accountRecordsOf: (importSupplier, externalAccountNumber) => gather((r) => r.ofAccount({ supplier: importSupplier, ext: externalAccountNumber })),
  };
}
