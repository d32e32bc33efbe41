import { z } from 'zod';
import { ofType, type Answer, type Events } from './answer.js';
import { comparedRecordsSchema } from '../export/account-records-digest.js';

/** payment-instruction/create/ 201, for a new instruction and for a reference already recorded on the account. */
export const createPaymentInstructionResponseSchema = z.object({
  platform_account_number: z.string(),
  reference: z.string(),
});

/** business-payment-instruction/create/ 201, for a new instruction and for a reference already recorded on the business. */
export const createBusinessPaymentInstructionResponseSchema = z.object({
  reference: z.string(),
  external_business_identifier: z.string(),
});

export function paymentInstructionAnswer(created: { platformAccountNumber: string; reference: string }): Answer<z.input<typeof createPaymentInstructionResponseSchema>> {
  return { status: 201, body: { platform_account_number: created.platformAccountNumber, reference: created.reference } };
}

export function paymentInstructionAnswerFromEvents(events: Events): Answer | null {
  const created = ofType(events, 'PaymentInstructionCreated')[0];
  return created ? paymentInstructionAnswer(created.event.data) : null;
}

export function businessPaymentInstructionAnswer(created: {
  reference: string;
  externalBusinessIdentifier: string;
}): Answer<z.input<typeof createBusinessPaymentInstructionResponseSchema>> {
  return { status: 201, body: { reference: created.reference, external_business_identifier: created.externalBusinessIdentifier } };
}

export function businessPaymentInstructionAnswerFromEvents(events: Events): Answer | null {
  const created = ofType(events, 'BusinessPaymentInstructionCreated')[0];
  return created ? businessPaymentInstructionAnswer(created.event.data) : null;
}

/**
 * A business's payment instruction as the business read (GET business/<supplier>/<ext>/) shows it: the
 * facts of its create body under the body's names, the account side's compared instruction (reference,
 * vendor, type) with the business's own `valid_from` and `accounts`, in the order the request named them.
 */
export const businessPaymentInstructionReadSchema = comparedRecordsSchema.shape.payment_instructions.element.extend({
  valid_from: z.string().nullable(),
  accounts: z.array(z.object({ external_account_number: z.string() })),
});
export type BusinessPaymentInstructionRead = z.infer<typeof businessPaymentInstructionReadSchema>;

export function businessPaymentInstructionRead(recorded: {
  reference: string;
  vendor: string;
  type: string;
  validFrom: string | null;
  accounts: readonly { externalAccountNumber: string }[];
}): BusinessPaymentInstructionRead {
  return {
    reference: recorded.reference,
    vendor: recorded.vendor,
    type: recorded.type,
    valid_from: recorded.validFrom,
    accounts: recorded.accounts.map((account) => ({ external_account_number: account.externalAccountNumber })),
  };
}
