import { createHash } from 'node:crypto';
import { balanceEffectCents } from '../domain/ledger/ledger-transaction.js';
import { parseCents } from '../domain/account-records/money.js';
import { DIGEST_KINDS, recordDigests, type ComparedRecords, type DigestKind, type ComparedStatement, type ComparedTransaction, type RecordDigests } from '../export/account-records-digest.js';
import { isUnreadable, type MigrationInput } from './input.js';

/**
 * What the migration folder says an account's records are, in the form the records export compares: the
 * notes and statements of the account's own file, of records/<EXT>/ and of the NDJSON record files; the
 * transactions of records/<EXT>/ and of records/transactions.ndjson; the payment instructions of
 * records/<EXT>/payment-instructions.json and of records/payment-instructions.ndjson.
 */
export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
export const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
/** A field as the service records it in text: a string as is, nothing as '', anything else as its JSON. */
export const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));

/** Cents of a JSON money amount as the service reads it; NaN when the service would refuse it (never equal to what it holds). */
const cents = (value: unknown): number => {
  if (typeof value !== 'number') return Number.NaN;
  const parsed = parseCents(value);
  return parsed.ok ? parsed.cents : Number.NaN;
};

/** Records of a folder file or NDJSON line, as sent, in the compared form of their kind. */
export const compared = {
  notes: (raw: readonly unknown[]): ComparedRecords['notes'] => raw.map((n) => ({ body: isObject(n) && typeof n['body'] === 'string' ? n['body'] : null })),
  statements: (raw: readonly unknown[]): ComparedStatement[] =>
    raw.map((r) => {
      const s = isObject(r) ? r : {};
      return {
        statement_id: text(s['statement_id']),
        bill_period_from_date: text(s['bill_period_from_date']),
        bill_period_to_date: text(s['bill_period_to_date']),
        gross_amount_cents: s['gross_amount'] === undefined || s['gross_amount'] === null ? null : cents(s['gross_amount']),
      };
    }),
  transactions: (raw: readonly unknown[]): ComparedTransaction[] =>
    raw.map((r) => {
      const t = isObject(r) ? r : {};
      return { transaction_id: text(t['transaction_id']), amount_cents: cents(t['amount']), type: text(t['type']) };
    }),
  /** Spec 4.12's body: `instruction_reference` is the deprecated alias of `reference`, recorded as it. */
  payment_instructions: (raw: readonly unknown[]): ComparedRecords['payment_instructions'] =>
    raw.map((r) => {
      const p = isObject(r) ? r : {};
      return { reference: text(p['reference'] ?? p['instruction_reference']), vendor: text(p['vendor']), type: text(p['type']) };
    }),
} as const satisfies { readonly [K in DigestKind]: (raw: readonly unknown[]) => ComparedRecords[K] };

/** The records of one kind in records/<EXT>/<kind>.json: the bare array, or the request body holding it. */
function folderRecords(input: MigrationInput, ext: string, kind: 'notes' | 'transactions' | 'statements', supplier: string): unknown[] {
  const item = input.records(ext, kind, supplier);
  if (!item || isUnreadable(item)) return [];
  const body = item.body as Json;
  return array(body[kind]);
}

/** The instructions of records/<EXT>/payment-instructions.json, as sent (an unreadable one is not sent: not expected). */
const folderInstructions = (input: MigrationInput, ext: string, supplier: string): unknown[] =>
  (input.paymentInstructions(ext, supplier) ?? []).flatMap((item) => (isUnreadable(item) ? [] : [item.body]));

export interface SourceAccount {
  readonly records: ComparedRecords;
  /** The sum of the source transactions' effects on what the customer owes, in cents. */
  readonly balanceCents: number;
}

/** One line of an NDJSON record file, for one account: its records of one kind in the compared form, as JSON. */
export interface LineRecords {
  readonly kind: string;
  readonly records: string;
}

/** `lines`: what the NDJSON record files hold for the account (VerifyScratch.lineRecordsOf). */
export function sourceAccount(input: MigrationInput, supplier: string, ext: string, account: unknown, lines: readonly LineRecords[] = []): SourceAccount {
  const payload = isObject(account) ? account : {};
  const ofLines = <K extends DigestKind>(kind: K): ComparedRecords[K][number][] =>
    lines.filter((l) => l.kind === kind).flatMap((l) => JSON.parse(l.records) as ComparedRecords[K][number][]);
  const notes = [...compared.notes([...array(payload['notes']), ...folderRecords(input, ext, 'notes', supplier)]), ...ofLines('notes')];
  const statements = [...compared.statements([...array(payload['statements']), ...folderRecords(input, ext, 'statements', supplier)]), ...ofLines('statements')];
  const transactions = [...compared.transactions(folderRecords(input, ext, 'transactions', supplier)), ...ofLines('transactions')];
  const paymentInstructions = [...compared.payment_instructions(folderInstructions(input, ext, supplier)), ...ofLines('payment_instructions')];
  let balanceCents = 0;
  for (const t of transactions) {
    if (['CHARGE', 'SUPPLY_CHARGE', 'REPAYMENT', 'CREDIT', 'PAYMENT'].includes(t.type)) {
      balanceCents += balanceEffectCents(t.type as Parameters<typeof balanceEffectCents>[0], t.amount_cents);
    }
  }
  return { records: { notes, transactions, statements, payment_instructions: paymentInstructions }, balanceCents };
}

/** An account's state, record digests and balance in one short hash: 24 characters kept per account while the export streams by. */
export function fingerprint(state: string, digests: RecordDigests, balanceCents: number): string {
  const parts = [state, ...DIGEST_KINDS.map((kind) => digests[kind]), String(balanceCents)];
  return createHash('sha256').update(parts.join('|')).digest('base64url').slice(0, 24);
}

export const sourceFingerprint = (source: SourceAccount): string => fingerprint('imported', recordDigests(source.records), source.balanceCents);
