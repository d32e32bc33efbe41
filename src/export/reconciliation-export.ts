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
export type ReconciliationRecord = { readonly [K in Column]: string | number | null };

const stateNames = { STAGED: 'pending', IMPORTED: 'imported', SKIPPED: 'skipped' } as const;

export function reconciliationRecord(row: ReconciliationRow): ReconciliationRecord {
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

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a double quote, a
 * CR or an LF, a quote doubled inside; null is the empty field. Values are
 * written as they are (no spreadsheet formula escaping: the export is
 * compared value for value).
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** RFC 4180 ends records with CRLF. */
const CSV_EOL = '\r\n';

export function csvRecord(values: readonly (string | number | null)[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : ',') + csvField(values[i]!);
  return line + CSV_EOL;
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
  if (format === 'csv') yield csvRecord(reconciliationColumns);
  for await (const rows of chunks) {
    let text = '';
    for (const row of rows) {
      const record = reconciliationRecord(row);
      text += format === 'csv' ? csvRecord(Object.values(record)) : `${JSON.stringify(record)}\n`;
    }
    tally.items += rows.length;
    yield text;
  }
}
