import { createHash } from 'node:crypto';
import { balanceEffectCents } from '../domain/ledger/ledger-transaction.js';
import { parseCents } from '../domain/account-records/money.js';
import { DIGEST_KINDS, recordDigests, type ComparedRecords, type ComparedStatement, type ComparedTransaction, type RecordDigests } from '../export/account-records-digest.js';
import { isUnreadable, type MigrationInput } from './input.js';

/**
 * What the migration folder says an account's records are, in the form the records export compares: the
 * notes and statements of the account's own file and of records/<EXT>/, the transactions of records/<EXT>/.
 * The folder has no payment instructions, so the service should hold none.
 */
type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));

/** Cents of a JSON money amount as the service reads it; NaN when the service would refuse it (never equal to what it holds). */
const cents = (value: unknown): number => {
  if (typeof value !== 'number') return Number.NaN;
  const parsed = parseCents(value);
  return parsed.ok ? parsed.cents : Number.NaN;
};

/** The records of one kind in records/<EXT>/<kind>.json: the bare array, or the request body holding it. */
function folderRecords(input: MigrationInput, ext: string, kind: 'notes' | 'transactions' | 'statements', supplier: string): unknown[] {
  const item = input.records(ext, kind, supplier);
  if (!item || isUnreadable(item)) return [];
  const body = item.body as Json;
  return array(body[kind]);
}

export interface SourceAccount {
  readonly records: ComparedRecords;
  /** The sum of the source transactions' effects on what the customer owes, in cents. */
  readonly balanceCents: number;
}

export function sourceAccount(input: MigrationInput, supplier: string, ext: string, account: unknown): SourceAccount {
  const payload = isObject(account) ? account : {};
  const notes = [...array(payload['notes']), ...folderRecords(input, ext, 'notes', supplier)].map((n) => ({ body: isObject(n) && typeof n['body'] === 'string' ? n['body'] : null }));
  const statements: ComparedStatement[] = [...array(payload['statements']), ...folderRecords(input, ext, 'statements', supplier)].map((raw) => {
    const s = isObject(raw) ? raw : {};
    return {
      statement_id: text(s['statement_id']),
      bill_period_from_date: text(s['bill_period_from_date']),
      bill_period_to_date: text(s['bill_period_to_date']),
      gross_amount_cents: s['gross_amount'] === undefined || s['gross_amount'] === null ? null : cents(s['gross_amount']),
    };
  });
  const transactions: ComparedTransaction[] = folderRecords(input, ext, 'transactions', supplier).map((raw) => {
    const t = isObject(raw) ? raw : {};
    return { transaction_id: text(t['transaction_id']), amount_cents: cents(t['amount']), type: text(t['type']) };
  });
  let balanceCents = 0;
  for (const t of transactions) {
    if (['CHARGE', 'SUPPLY_CHARGE', 'REPAYMENT', 'CREDIT', 'PAYMENT'].includes(t.type)) {
      balanceCents += balanceEffectCents(t.type as Parameters<typeof balanceEffectCents>[0], t.amount_cents);
    }
  }
  return { records: { notes, transactions, statements, payment_instructions: [] }, balanceCents };
}

/** An account's state, record digests and balance in one short hash: 24 characters kept per account while the export streams by. */
export function fingerprint(state: string, digests: RecordDigests, balanceCents: number): string {
  const parts = [state, ...DIGEST_KINDS.map((kind) => digests[kind]), String(balanceCents)];
  return createHash('sha256').update(parts.join('|')).digest('base64url').slice(0, 24);
}

export const sourceFingerprint = (source: SourceAccount): string => fingerprint('imported', recordDigests(source.records), source.balanceCents);
