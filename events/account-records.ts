import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { eventSchema } from './envelope.js';

/**
 * Records added to an imported account: notes (spec 4.9), ledger transactions (4.10) and historical
 * statements (4.11). They live on the account's own stream, so that processing an account and the records
 * its staged payload brings are one transaction, and every command is decided against the account's whole
 * state. Money is integer cents; other decimals are the decimal string the caller's JSON number read as.
 */

/** Where a record came from: a post-import request, the staged payload at process time, or the ledger rules. */
export const recordSources = ['import_request', 'staged_payload', 'transaction_import'] as const;
export const recordSourceSchema = z.enum(recordSources);
export type RecordSource = z.infer<typeof recordSourceSchema>;

const decimalString = z.string().regex(/^-?\d+(?:\.\d+)?$/);
const cents = z.int();

/**
 * A note was added to the account. `sequence` numbers the account's notes from 1 (its identity within the
 * account). `createdAt` is the caller's datetime, or the server clock when it gave none (`createdAtGiven`
 * false). No two notes of an account share their content (body, else document paths) and given instant.
 */
export const accountNoteCreatedSchema = eventSchema(
  'AccountNoteCreated',
  1,
  z.object({
    ...accountRef,
    sequence: z.int().min(1),
    body: z.string().nullable(),
    createdAt: z.string(),
    createdAtGiven: z.boolean(),
    isPinned: z.boolean(),
    unpinAt: z.string().nullable(),
    documentPaths: z.array(z.string()),
    source: recordSourceSchema,
  }),
);

export const ledgerTransactionTypes = ['CHARGE', 'CREDIT', 'PAYMENT', 'REPAYMENT', 'SUPPLY_CHARGE'] as const;
export const ledgerTransactionTypeSchema = z.enum(ledgerTransactionTypes);
export type LedgerTransactionType = z.infer<typeof ledgerTransactionTypeSchema>;

export const ledgerLineItemSchema = z.object({
  rateBand: z.string(),
  startDate: z.string(),
  endDate: z.string(),
  numberOfUnits: decimalString,
  netAmountCents: cents,
  pricePerUnit: decimalString.nullable(),
  units: z.array(decimalString).nullable(),
});

export const ledgerTaxItemSchema = z.object({
  amountCents: cents,
  taxType: z.string(),
  valueTaxed: decimalString,
  rate: decimalString,
  unitType: z.string(),
});

/** One financial transaction as the ledger records it: the caller's fields, amounts in cents. */
export const ledgerTransactionSchema = z.object({
  transactionId: z.string(),
  type: ledgerTransactionTypeSchema,
  /** The date the ledger books it on: the caller's date, or the open period's first day when it was moved. */
  transactionDate: z.string(),
  /** The caller's date when the transaction was moved into the open statement period, else null. */
  originalTransactionDate: z.string().nullable(),
  /** Added by the service when the date was moved (saying so, with the original date), else null. */
  description: z.string().nullable(),
  /** Signed as the caller sent it; the balance effect follows from `type` (see the account ledger projection). */
  amountCents: cents,
  reason: z.string().nullable(),
  displayNote: z.string().nullable(),
  note: z.string().nullable(),
  reference: z.string().nullable(),
  paymentType: z.string().nullable(),
  productCode: z.string().nullable(),
  supplyPointIdentifier: z.string().nullable(),
  lineItems: z.array(ledgerLineItemSchema).nullable(),
  taxItems: z.array(ledgerTaxItemSchema).nullable(),
});
export type LedgerTransaction = z.infer<typeof ledgerTransactionSchema>;

/**
 * A financial transaction was added to the account's ledger (spec 4.10), never twice with one
 * transaction_id. The transactions of one request are appended together or not at all.
 */
export const ledgerTransactionAddedSchema = eventSchema(
  'LedgerTransactionAdded',
  1,
  z.object({ ...accountRef, transaction: ledgerTransactionSchema, addedAt: z.string() }),
);

/**
 * A statement of the legacy supplier was recorded on the account (spec 4.11, or the staged payload's
 * `statements`); statement_id is unique per account. The open statement period starts the day after the
 * latest of last_billed_to_date and every historical statement's `billPeriodToDate`.
 */
export const historicalStatementImportedSchema = eventSchema(
  'HistoricalStatementImported',
  1,
  z.object({
    ...accountRef,
    statementId: z.string(),
    billPeriodFromDate: z.string(),
    billPeriodToDate: z.string(),
    issuedDate: z.string().nullable(),
    number: z.string().nullable(),
    grossAmountCents: cents.nullable(),
    statementPath: z.string().nullable(),
    source: recordSourceSchema,
    importedAt: z.string(),
  }),
);

export const accountRecordEventSchemas = [
  accountNoteCreatedSchema,
  ledgerTransactionAddedSchema,
  historicalStatementImportedSchema,
] as const;

export type AccountNoteCreated = z.infer<typeof accountNoteCreatedSchema>;
export type LedgerTransactionAdded = z.infer<typeof ledgerTransactionAddedSchema>;
export type HistoricalStatementImported = z.infer<typeof historicalStatementImportedSchema>;
