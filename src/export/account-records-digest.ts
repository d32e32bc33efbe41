import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * The records of an account as `import-ledger verify` compares them, and their digest: what the records
 * export (GET account-records/<supplier>/) sends per account and what the command computes from the
 * migration folder, so that only the accounts whose digests differ are asked for in detail.
 *
 * Each record is reduced to the fields both sides hold in the same form (ids, integer cents, the type, a
 * note's body), one JSON array per record, and the digest is the SHA-256 of those lines sorted: the same
 * records give the same digest whatever order they were sent, stored or read in.
 */
export const comparedRecordsSchema = z.object({
  notes: z.array(z.object({ body: z.string().nullable() })),
  transactions: z.array(z.object({ transaction_id: z.string(), amount_cents: z.number().int(), type: z.string() })),
  statements: z.array(
    z.object({ statement_id: z.string(), bill_period_from_date: z.string(), bill_period_to_date: z.string(), gross_amount_cents: z.number().int().nullable() }),
  ),
  payment_instructions: z.array(z.object({ reference: z.string(), vendor: z.string(), type: z.string() })),
});
export type ComparedRecords = z.infer<typeof comparedRecordsSchema>;
export type DigestKind = keyof ComparedRecords;
export const DIGEST_KINDS = ['notes', 'transactions', 'statements', 'payment_instructions'] as const satisfies readonly DigestKind[];

type RecordOf<K extends DigestKind> = ComparedRecords[K][number];
export type ComparedTransaction = RecordOf<'transactions'>;
export type ComparedStatement = RecordOf<'statements'>;

/** Per kind: a record's fields in a fixed order (its line in the digest), and what names it in a report line (a note has no id: its body). */
const kinds: { readonly [K in DigestKind]: { fields(record: RecordOf<K>): unknown[]; id(record: RecordOf<K>): string } } = {
  notes: { fields: (r) => [r.body], id: (r) => r.body ?? '' },
  transactions: { fields: (r) => [r.transaction_id, r.amount_cents, r.type], id: (r) => r.transaction_id },
  statements: { fields: (r) => [r.statement_id, r.bill_period_from_date, r.bill_period_to_date, r.gross_amount_cents], id: (r) => r.statement_id },
  payment_instructions: { fields: (r) => [r.reference, r.vendor, r.type], id: (r) => r.reference },
};

export const recordLine = <K extends DigestKind>(kind: K, record: RecordOf<K>): string => JSON.stringify(kinds[kind].fields(record));

export const recordId = <K extends DigestKind>(kind: K, record: RecordOf<K>): string => kinds[kind].id(record);

/** The digest of one kind of records: SHA-256 (hex, 32 digits) of their lines, sorted. */
function recordsDigest<K extends DigestKind>(kind: K, records: readonly RecordOf<K>[]): string {
  const lines = records.map((record) => recordLine(kind, record)).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 32);
}

export type RecordDigests = Readonly<Record<DigestKind, string>>;

export const recordDigests = (records: ComparedRecords): RecordDigests =>
  Object.fromEntries(DIGEST_KINDS.map((kind) => [kind, recordsDigest(kind, records[kind])])) as RecordDigests;
