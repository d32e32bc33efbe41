import { z } from 'zod';
import type { AccountRecordRows } from '../queries/account-records-export-read-models.js';
import type { ReconciliationRow } from '../queries/account-list-read-models.js';
import { comparedRecordsSchema, DIGEST_KINDS, recordDigests, type ComparedRecords } from './account-records-digest.js';
import { stateNames } from './reconciliation-export.js';

/**
 * The records export (GET account-records/<supplier>/): one NDJSON line per account of the supplier, in
 * the lists' order, with its state, its ledger balance and the digest of each kind of its records
 * (account-records-digest.ts), the records themselves only when asked for. What `import-ledger verify`
 * reads to compare a migration folder with the service without one request per account.
 */
const digestsSchema = z.object({ notes: z.string(), transactions: z.string(), statements: z.string(), payment_instructions: z.string() });
export const accountRecordsLineSchema = z.object({
  external_account_number: z.string(),
  state: z.enum(['pending', 'imported', 'skipped']),
  platform_account_number: z.string().nullable(),
  /** Integer cents: what the customer owes (negative: in credit). */
  ledger_balance_cents: z.number().int(),
  counts: z.object({ notes: z.number().int(), transactions: z.number().int(), statements: z.number().int(), payment_instructions: z.number().int() }),
  digests: digestsSchema,
  records: comparedRecordsSchema.optional(),
});
export type AccountRecordsLine = z.infer<typeof accountRecordsLineSchema>;
export const accountRecordsOneSchema = accountRecordsLineSchema.required({ records: true });

const noRecords = (): ComparedRecords => ({ notes: [], transactions: [], statements: [], payment_instructions: [] });

/** The rows of a run of accounts grouped per account, in the form both sides compare. */
export function groupRecords(rows: AccountRecordRows): Map<string, ComparedRecords> {
  const grouped = new Map<string, ComparedRecords>();
  const of = (ext: string) => {
    let records = grouped.get(ext);
    if (!records) grouped.set(ext, (records = noRecords()));
    return records;
  };
  for (const r of rows.notes) of(r.externalAccountNumber).notes.push({ body: r.body });
  for (const r of rows.transactions) of(r.externalAccountNumber).transactions.push({ transaction_id: r.transactionId, amount_cents: Number(r.amountCents), type: r.type });
  for (const r of rows.statements) {
    of(r.externalAccountNumber).statements.push({
      statement_id: r.statementId,
      bill_period_from_date: r.billPeriodFromDate,
      bill_period_to_date: r.billPeriodToDate,
      gross_amount_cents: r.grossAmountCents === null ? null : Number(r.grossAmountCents),
    });
  }
  for (const r of rows.paymentInstructions) of(r.externalAccountNumber).payment_instructions.push({ reference: r.reference, vendor: r.vendor, type: r.type });
  return grouped;
}

export function accountRecordsLine(
  account: Pick<ReconciliationRow, 'externalAccountNumber' | 'state' | 'platformAccountNumber' | 'balanceCents'>,
  records: ComparedRecords = noRecords(),
  withRecords = false,
): AccountRecordsLine {
  return {
    external_account_number: account.externalAccountNumber,
    state: stateNames[account.state],
    platform_account_number: account.platformAccountNumber,
    ledger_balance_cents: Number(account.balanceCents),
    counts: Object.fromEntries(DIGEST_KINDS.map((kind) => [kind, records[kind].length])) as AccountRecordsLine['counts'],
    digests: recordDigests(records),
    ...(withRecords ? { records: { ...records } } : {}),
  };
}

/**
 * The export's text, one part per chunk of accounts: each chunk's records are read in one go by its accounts'
 * keys, so memory holds one chunk of accounts and their records, whatever the supplier's size.
 */
export async function* accountRecordsParts(
  chunks: AsyncIterable<readonly ReconciliationRow[]>,
  readRecords: (externalAccountNumbers: readonly string[]) => Promise<AccountRecordRows>,
  withRecords: boolean,
  tally: { items: number } = { items: 0 },
): AsyncGenerator<string> {
  for await (const rows of chunks) {
    const grouped = groupRecords(await readRecords(rows.map((row) => row.externalAccountNumber)));
    tally.items += rows.length;
    yield rows.map((row) => `${JSON.stringify(accountRecordsLine(row, grouped.get(row.externalAccountNumber), withRecords))}\n`).join('');
  }
}
