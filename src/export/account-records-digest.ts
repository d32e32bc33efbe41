import { createHash } from 'node:crypto';

/**
 * The records of an account as `import-ledger verify` compares them, and their digest: what the records
 * export (GET account-records/<supplier>/) sends per account and what the command computes from the
 * migration folder, so that only the accounts whose digests differ are asked for in detail.
 *
 * Each record is reduced to the fields both sides hold in the same form (ids, integer cents, the type, a
 * note's body), one JSON array per record, and the digest is the SHA-256 of those lines sorted: the same
 * records give the same digest whatever order they were sent, stored or read in.
 */
export const DIGEST_KINDS = ['notes', 'transactions', 'statements', 'payment_instructions'] as const;
export type DigestKind = (typeof DIGEST_KINDS)[number];

export interface ComparedNote {
  readonly body: string | null;
}
export interface ComparedTransaction {
  readonly transaction_id: string;
  readonly amount_cents: number;
  readonly type: string;
}
export interface ComparedStatement {
  readonly statement_id: string;
  readonly bill_period_from_date: string;
  readonly bill_period_to_date: string;
  readonly gross_amount_cents: number | null;
}
export interface ComparedPaymentInstruction {
  readonly reference: string;
  readonly vendor: string;
  readonly type: string;
}

export interface ComparedRecords {
  readonly notes: readonly ComparedNote[];
  readonly transactions: readonly ComparedTransaction[];
  readonly statements: readonly ComparedStatement[];
  readonly payment_instructions: readonly ComparedPaymentInstruction[];
}
type RecordOf<K extends DigestKind> = ComparedRecords[K][number];

/** The fields of a record in a fixed order: its line in the digest. */
export function recordLine<K extends DigestKind>(kind: K, record: RecordOf<K>): string {
  switch (kind) {
    case 'notes': {
      const r = record as ComparedNote;
      return JSON.stringify([r.body]);
    }
    case 'transactions': {
      const r = record as ComparedTransaction;
      return JSON.stringify([r.transaction_id, r.amount_cents, r.type]);
    }
    case 'statements': {
      const r = record as ComparedStatement;
      return JSON.stringify([r.statement_id, r.bill_period_from_date, r.bill_period_to_date, r.gross_amount_cents]);
    }
    default: {
      const r = record as ComparedPaymentInstruction;
      return JSON.stringify([r.reference, r.vendor, r.type]);
    }
  }
}

/** What names a record within its account in a report line: its id (a note has none, so its body). */
export function recordId<K extends DigestKind>(kind: K, record: RecordOf<K>): string {
  switch (kind) {
    case 'notes':
      return (record as ComparedNote).body ?? '';
    case 'transactions':
      return (record as ComparedTransaction).transaction_id;
    case 'statements':
      return (record as ComparedStatement).statement_id;
    default:
      return (record as ComparedPaymentInstruction).reference;
  }
}

/** The digest of one kind of records: SHA-256 (hex, 32 digits) of their lines, sorted. */
export function recordsDigest<K extends DigestKind>(kind: K, records: readonly RecordOf<K>[]): string {
  const lines = records.map((record) => recordLine(kind, record)).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 32);
}

export type RecordDigests = Readonly<Record<DigestKind, string>>;

export function recordDigests(records: ComparedRecords): RecordDigests {
  return {
    notes: recordsDigest('notes', records.notes),
    transactions: recordsDigest('transactions', records.transactions),
    statements: recordsDigest('statements', records.statements),
    payment_instructions: recordsDigest('payment_instructions', records.payment_instructions),
  };
}
