import { z } from 'zod';
import type { core } from 'zod';
import { ledgerTransactionTypes } from '../../../events/account-records.js';
import { isoDate } from '../account-import-process/iso-dates.js';
import { addDomainIssue, choice, datesInOrder, requiredText, whenClean } from '../account-import-process/payload-fields.js';
import { centsAmount, decimalText } from '../account-records/money.js';
import { accountEnvelopeFields, MAX_RECORDS_PER_REQUEST, validateAccountRequest, withAccountNumberAlias } from '../account-records/request-fields.js';
import type { Validation } from '../validation/field-errors.js';
import type { FieldError } from '../errors.js';

const lineItemInputSchema = z
  .object({
    rate_band: requiredText(),
    start_date: isoDate(),
    end_date: isoDate(),
    number_of_units: decimalText(12, 4),
    net_amount: centsAmount(),
    price_per_unit: decimalText(8, 7).optional(),
    units: z.array(decimalText(12, 4)).optional(),
  })
  .superRefine(...datesInOrder('report', 'start_date', 'end_date'));

const taxItemInputSchema = z.object({
  amount: centsAmount(),
  tax_type: requiredText(),
  value_taxed: decimalText(10, 5),
  rate: decimalText(10, 5),
  unit_type: choice(['PROPORTION', 'CURRENCY_PER_KWH']),
});

const common = {
  transaction_id: requiredText(128),
  transaction_date: isoDate(),
  amount: centsAmount(),
  note: z.string().optional(),
  display_note: z.string().optional(),
};

/** Never zero; for PAYMENT and REPAYMENT, money that moved, strictly positive (elsewhere a negative amount is a reversal). */
function amountRule(positive: boolean) {
  return [
    (tx: { amount: number }, ctx: core.$RefinementCtx<unknown>) => {
      if (tx.amount === 0) addDomainIssue(ctx, 'zero_transaction_amount', 'The amount must not be zero.', ['amount']);
      else if (positive && tx.amount < 0) addDomainIssue(ctx, 'negative_transaction_amount', 'Payments and repayments must be positive.', ['amount']);
    },
    whenClean(['amount']),
  ] as const;
}
const nonZero = amountRule(false);
const positive = amountRule(true);

const chargeSchema = z.object({ ...common, type: z.literal('CHARGE'), reason: requiredText(), tax_items: z.array(taxItemInputSchema).optional() }).superRefine(...nonZero);
const creditSchema = z.object({ ...common, type: z.literal('CREDIT'), reason: requiredText() }).superRefine(...nonZero);
const paymentFields = { reason: z.string().optional(), payment_type: z.string().optional(), reference: z.string().max(512).optional() };
const paymentSchema = z.object({ ...common, type: z.literal('PAYMENT'), ...paymentFields }).superRefine(...positive);
const repaymentSchema = z.object({ ...common, type: z.literal('REPAYMENT'), ...paymentFields }).superRefine(...positive);
const supplyChargeSchema = z
  .object({
    ...common,
    type: z.literal('SUPPLY_CHARGE'),
    // No reason on the platform's SUPPLY_CHARGE; the spec's example sends one, so it is kept when given.
    reason: z.string().optional(),
    product_code: requiredText(),
    supply_point_identifier: z.string().optional(),
    line_items: z.array(lineItemInputSchema).min(1),
    tax_items: z.array(taxItemInputSchema).optional(),
  })
  .superRefine(...nonZero)
  .superRefine(
    (tx, ctx) => {
      const total = tx.line_items.reduce((sum, item) => sum + item.net_amount, 0) + (tx.tax_items ?? []).reduce((sum, tax) => sum + tax.amount, 0);
      if (total !== tx.amount) {
        const detail = 'The amount must equal the sum of the line items\' net amounts plus the tax amounts, to the cent.';
        addDomainIssue(ctx, 'ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount', detail, ['amount']);
      }
    },
    whenClean(['amount'], ['line_items'], ['tax_items']),
  );

/** Guarded like the account's payment preferences: a bad `type` is reported at `transactions.N.type`. */
const transactionInputSchema = z
  .looseObject({ type: choice(ledgerTransactionTypes) })
  .pipe(z.discriminatedUnion('type', [chargeSchema, creditSchema, paymentSchema, repaymentSchema, supplyChargeSchema]));
export type TransactionInput = z.output<typeof transactionInputSchema>;

/**
 * POST transactions/create/ (spec 4.10): the financial transaction of spec 2.6, per type (the platform's rules
 * where the spec is silent). Amounts are parsed to integer cents, other decimals kept as their decimal text;
 * unknown fields are dropped.
 */
export const importTransactionsRequestSchema = withAccountNumberAlias(
  z.object({
    ...accountEnvelopeFields,
    transactions: z.array(transactionInputSchema).min(1).max(MAX_RECORDS_PER_REQUEST),
    /** The platform's dry run: every rule applied and the answer a real import would give, nothing stored. */
    dry_run: z.boolean().optional().default(false),
  }),
);
export type ImportTransactionsRequest = z.output<typeof importTransactionsRequestSchema>;

/** Every later item whose transaction_id repeats an earlier one, read from the raw input so it is reported alongside other problems. */
function duplicateIds(input: unknown): FieldError[] {
  if (typeof input !== 'object' || input === null) return [];
  const items = (input as Record<string, unknown>)['transactions'];
  if (!Array.isArray(items)) return [];
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  items.forEach((item: unknown, index) => {
    const id = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)['transaction_id'] : undefined;
    if (typeof id !== 'string') return;
    if (seen.has(id)) {
      errors.push({ detail: `Duplicate transaction_id "${id}" in this request.`, code: 'duplicate_transaction_ids', attr: `transactions.${index}.transaction_id` });
    }
    seen.add(id);
  });
  return errors;
}

export function validateImportTransactionsRequest(input: unknown): Validation<ImportTransactionsRequest> {
  const parsed = validateAccountRequest(importTransactionsRequestSchema, input);
  const duplicates = duplicateIds(input);
  if (parsed.ok && duplicates.length === 0) return parsed;
  return { ok: false, errors: [...(parsed.ok ? [] : parsed.errors), ...duplicates] };
}
