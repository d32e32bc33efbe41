import { Hono } from 'hono';
import { z } from 'zod';
import type { PaymentVendors } from '../../adapters/payment-vendors.js';
import { paymentInstructionAnswer } from '../../answers/payment-instructions.js';
import type { LedgerContext } from '../../application/context.js';
import { createPaymentInstruction } from '../../application/payment-instructions.js';
import { PAYMENT_INSTRUCTION_TYPES } from '../../domain/account-import-process/account-payload-supply.js';
import { choice, requiredText } from '../../domain/account-import-process/payload-fields.js';
import { referenceOrAliasFields, withOneReference } from '../../domain/payment-instruction/reference-fields.js';
import { isDomainError } from '../../domain/errors.js';
import { answer } from '../answer.js';
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

export function paymentInstructionRoutes(ctx: LedgerContext, vendors: PaymentVendors) {
  return new Hono<AppEnv>().post(
    '/payment-instruction/create/',
    async (c) => {
      // Scope first: a caller learns nothing about the body's other fields for a supplier it cannot act for.
      const request = validated(await scopedBody(c), bySchema(createPaymentInstructionRequestSchema));
      try {
        const result = await createPaymentInstruction(
          ctx,
          vendors,
          {
            importSupplier: request.import_supplier,
            externalAccountNumber: request.external_account_number,
            vendor: request.vendor,
            reference: request.reference,
            instructionType: request.type,
          },
          httpActor(c),
        );
        return answer(c, paymentInstructionAnswer(result));
      } catch (error) {
        if (isDomainError(error) && error.code === 'payment_vendor_unavailable') {
          c.get('logger').warn({ vendor: request.vendor, reference: request.reference, detail: error.detail }, 'payment vendor unavailable');
        }
        throw error;
      }
    },
  );
}
