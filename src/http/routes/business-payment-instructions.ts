import { Hono } from 'hono';
import { z } from 'zod';
import type { PaymentVendors } from '../../adapters/payment-vendors.js';
import { businessPaymentInstructionAnswer } from '../../answers/payment-instructions.js';
import { createBusinessPaymentInstruction } from '../../application/business-payment-instructions.js';
import type { LedgerContext } from '../../application/context.js';
import { PAYMENT_INSTRUCTION_TYPES } from '../../domain/account-import-process/account-payload-supply.js';
import { isoDate } from '../../domain/account-import-process/iso-dates.js';
import { choice, requiredText, whenClean } from '../../domain/account-import-process/payload-fields.js';
import { noRepeatedKeys } from '../../domain/validation/field-errors.js';
import { referenceField, withOneReference } from '../../domain/payment-instruction/reference-fields.js';
import { isDomainError } from '../../domain/errors.js';
import { answer } from '../answer.js';
import { httpActor, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { errorBodySchema } from '../errors.js';
import { bySchema, validated } from '../validation.js';

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

export function businessPaymentInstructionRoutes(ctx: LedgerContext, vendors: PaymentVendors) {
  return new Hono<AppEnv>().post(
    '/business-payment-instruction/create/',
    async (c) => {
      // Scope first: a caller learns nothing about the body's other fields for a supplier it cannot act for.
      const request = validated(await scopedBody(c, 'import_supplier_code'), bySchema(createBusinessPaymentInstructionRequestSchema));
      try {
        await createBusinessPaymentInstruction(
          ctx,
          vendors,
          {
            importSupplier: request.import_supplier_code,
            externalBusinessIdentifier: request.external_business_identifier,
            vendor: request.vendor,
            reference: request.reference,
            instructionType: request.type,
            validFrom: request.valid_from ?? null,
            accounts: (request.accounts ?? []).map((account) => account.external_account_number),
          },
          httpActor(c),
        );
        return answer(c, businessPaymentInstructionAnswer({ reference: request.reference, externalBusinessIdentifier: request.external_business_identifier }));
      } catch (error) {
        if (isDomainError(error) && error.code === 'payment_vendor_unavailable') {
          c.get('logger').warn({ vendor: request.vendor, reference: request.reference, detail: error.detail }, 'payment vendor unavailable');
        }
        throw error;
      }
    },
  );
}
