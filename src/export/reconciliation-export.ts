import { csvRecords } from './csv.js';
import { formatCents } from '../domain/account-records/money.js';
import { specDateTime } from '../domain/account-import-process/iso-dates.js';
import type { ReconciliationRow } from '../queries/account-list-read-models.js';

/**
 * The reconciliation export (the cut-over check): one record per account of
 * an import supplier, in the lists' order, as CSV or NDJSON. Shared by the
 * HTTP endpoint and `import-ledger export reconciliation`.
 */
export const reconciliationFormats = ['csv', 'ndjson'] as const;
export type ReconciliationFormat = (typeof reconciliationFormats)[number];

export const reconciliationContentTypes: Readonly<Record<ReconciliationFormat, string>> = {
  csv: 'text/csv; charset=utf-8; header=present',
  ndjson: 'application/x-ndjson',
};

/** The columns, in order: the CSV header, and the keys of each NDJSON object. */
export const reconciliationColumns = [
  'external_account_number',
  'state',
  'platform_account_number',
  'transfer_status',
  'first_staged_at',
  'account_created_at',
  'note_count',
  'transaction_count',
  'historical_statement_count',
  'ledger_balance',
] as const;
type Column = (typeof reconciliationColumns)[number];
/** One record, its keys in the columns' order (what `Object.values` and the CSV rely on). */
type ReconciliationRecord = { readonly [K in Column]: string | number | null };

/** An import process's state as the exports name it. */
export const stateNames = { STAGED: 'pending', IMPORTED: 'imported', SKIPPED: 'skipped' } as const;

function reconciliationRecord(row: ReconciliationRow): ReconciliationRecord {
  return {
    external_account_number: row.externalAccountNumber,
    state: stateNames[row.state],
    platform_account_number: row.platformAccountNumber,
    // As the transfer-status endpoint reads it: UNKNOWN until the account is imported.
    transfer_status: row.state === 'IMPORTED' ? row.transferStatus : 'UNKNOWN',
    first_staged_at: specDateTime(row.firstStagedAt),
    account_created_at: row.accountCreatedAt === null ? null : specDateTime(row.accountCreatedAt),
    note_count: Number(row.noteCount),
    transaction_count: Number(row.transactionCount),
    historical_statement_count: Number(row.historicalStatementCount),
    ledger_balance: formatCents(Number(row.balanceCents)),
  };
}

/**
 * The export's text, one part per chunk of rows (the CSV header first):
 * what the endpoint streams and the CLI writes. `tally.items` counts the
 * records written.
 */
export async function* reconciliationParts(
  format: ReconciliationFormat,
  chunks: AsyncIterable<readonly ReconciliationRow[]>,
  tally: { items: number } = { items: 0 },
): AsyncGenerator<string> {
  if (format === 'csv') yield csvRecords([reconciliationColumns]);
  for await (const rows of chunks) {
    const records = rows.map(reconciliationRecord);
    tally.items += rows.length;
    yield format === 'csv' ? csvRecords(records.map((record) => Object.values(record))) : records.map((record) => `${JSON.stringify(record)}\n`).join('');
  }
}
