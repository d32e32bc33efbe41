import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { eventSchema } from './envelope.js';

/**
 * A payment instruction (a direct-debit mandate, a saved card, ...) held by a payment vendor was recorded
 * on an imported account (spec 4.12), once the vendor confirmed it exists: `vendorDetails` is its JSON
 * answer as given (with at least `reference`, `type` and `status`). A reference is recorded once per account.
 */
export const paymentInstructionCreatedSchema = eventSchema(
  'PaymentInstructionCreated',
  1,
  z.object({
    ...accountRef,
    platformAccountNumber: z.string(),
    /** The vendor name as the caller gave it (a key of LEDGER_PAYMENT_VENDORS). */
    vendor: z.string(),
    reference: z.string(),
    /** The instruction type the caller gave (CARD, DIRECT_DEBIT, ...). */
    type: z.string(),
    vendorDetails: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  }),
);

export const paymentInstructionEventSchemas = [paymentInstructionCreatedSchema] as const;

export type PaymentInstructionCreated = z.infer<typeof paymentInstructionCreatedSchema>;
