import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { PaymentVendors } from '../../adapters/payment-vendors.js';
import { businessPaymentInstructionAnswer, paymentInstructionAnswer } from '../../answers/payment-instructions.js';
import { createBusinessPaymentInstruction } from '../../application/business-payment-instructions.js';
import type { LedgerContext } from '../../application/context.js';
import { createPaymentInstruction } from '../../application/payment-instructions.js';
import { PAYMENT_INSTRUCTION_TYPES } from '../../domain/account-import-process/account-payload-supply.js';
import { isoDate } from '../../domain/account-import-process/iso-dates.js';
import { choice, requiredText, whenClean } from '../../domain/account-import-process/payload-fields.js';
import { isDomainError } from '../../domain/errors.js';
import { referenceField, referenceOrAliasFields, withOneReference } from '../../domain/payment-instruction/reference-fields.js';
import { noRepeatedKeys } from '../../domain/validation/field-errors.js';
import { answer } from '../answer.js';
import { recordImportAttempt, recordingRefusals } from '../attempts.js';
import { httpActor, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { errorBodySchema } from '../errors.js';
import { bySchema, validated } from '../validation.js';

/** POST payment-instruction/create/ (spec 4.12). */
export const createPaymentInstructionRequestSchema = withOneReference(
  z.object({
    import_supplier: requiredText(64),
    external_account_number: requiredText(128),
    /** A vendor name configured in LEDGER_PAYMENT_VENDORS (e.g. STRIPE). */
    vendor: requiredText(64),
    ...referenceOrAliasFields,
    type: choice(PAYMENT_INSTRUCTION_TYPES),
  }),
  'Exactly one of reference and instruction_reference (deprecated) is required.',
);

/**
 * The body of the vendor errors (400 `invalid_vendor`,
 * `payment_instruction_rejected`; 500 `payment_vendor_unavailable`): spec 7's
 * shape plus the platform's four fields.
 */
export const paymentInstructionErrorBodySchema = errorBodySchema.extend({
  error_detail: z.string(),
  external_account_number: z.string(),
  import_supplier: z.string(),
  reference: z.string(),
});

/** The platform's code for a child repeated in a list (as business details' keys). */
const CHILDREN_WITH_DUPLICATE_VALUES = 'children_with_duplicate_values';

/**
 * POST business-payment-instruction/create/ (the platform's
 * BusinessPaymentInstruction). `reference` is optional on the platform;
 * without one the vendor cannot be asked, so it is refused with the
 * platform's code for a missing reference (docs/businesses.md).
 */
export const createBusinessPaymentInstructionRequestSchema = withOneReference(z.object({
  import_supplier_code: requiredText(64),
  external_business_identifier: requiredText(128),
  /** A vendor name configured in LEDGER_PAYMENT_VENDORS (e.g. STRIPE). */
  vendor: requiredText(64),
  type: choice(PAYMENT_INSTRUCTION_TYPES),
  ...referenceField,
  valid_from: isoDate().nullable().optional(),
  /** The business's accounts the instruction is for: imported accounts of the supplier, each once. */
  accounts: z
    .array(z.object({ external_account_number: requiredText(128) }))
    .max(1000)
    .superRefine(
      noRepeatedKeys(
        (account: { external_account_number: string }) => account.external_account_number,
        CHILDREN_WITH_DUPLICATE_VALUES,
        (account) => `Account ${account} appears more than once.`,
        (i) => [i, 'external_account_number'],
      ),
      whenClean([]),
    )
    .optional(),
}), 'A reference is required: the instruction is checked with the payment vendor by its reference.');

/** The body of its domain errors: spec 7's shape plus the platform's CreateBusinessPaymentInstructionError fields. */
export const businessPaymentInstructionErrorBodySchema = errorBodySchema.extend({
  error_detail: z.string(),
  external_business_identifier: z.string(),
  import_supplier_code: z.string(),
  reference: z.string(),
});

/** A vendor that cannot be reached is logged with the instruction it was asked about, and the error answered as thrown. */
async function warningWhenVendorUnavailable<T>(c: Context<AppEnv>, request: { vendor: string; reference: string }, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isDomainError(error) && error.code === 'payment_vendor_unavailable') {
      c.get('logger').warn({ vendor: request.vendor, reference: request.reference, detail: error.detail }, 'payment vendor unavailable');
    }
    throw error;
  }
}

/**
 * A payment instruction of an imported account, or of a business for some of its accounts: checked with
 * the payment vendor first. Scope first: a caller learns nothing about the body's other fields for a
 * supplier it cannot act for.
 */
export function paymentInstructionRoutes(ctx: LedgerContext, vendors: PaymentVendors) {
  return new Hono<AppEnv>()
    // A refusal of an account's instruction is recorded on the account's audit stream.
    .post('/payment-instruction/create/', recordingRefusals(ctx, recordImportAttempt('payment_instruction')), async (c) => {
      const request = validated(await scopedBody(c), bySchema(createPaymentInstructionRequestSchema));
      const instruction = {
        importSupplier: request.import_supplier,
        externalAccountNumber: request.external_account_number,
        vendor: request.vendor,
        reference: request.reference,
        instructionType: request.type,
      };
      const result = await warningWhenVendorUnavailable(c, request, () => createPaymentInstruction(ctx, vendors, instruction, httpActor(c)));
      return answer(c, paymentInstructionAnswer(result));
    })
    .post('/business-payment-instruction/create/', async (c) => {
      const request = validated(await scopedBody(c, 'import_supplier_code'), bySchema(createBusinessPaymentInstructionRequestSchema));
      const instruction = {
        importSupplier: request.import_supplier_code,
        externalBusinessIdentifier: request.external_business_identifier,
        vendor: request.vendor,
        reference: request.reference,
        instructionType: request.type,
        validFrom: request.valid_from ?? null,
        accounts: (request.accounts ?? []).map((account) => account.external_account_number),
      };
      await warningWhenVendorUnavailable(c, request, () => createBusinessPaymentInstruction(ctx, vendors, instruction, httpActor(c)));
      return answer(c, businessPaymentInstructionAnswer({ reference: request.reference, externalBusinessIdentifier: request.external_business_identifier }));
    });
}
