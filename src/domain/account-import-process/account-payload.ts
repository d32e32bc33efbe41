import { z } from 'zod';
import type { FieldError } from '../errors.js';
import { fieldErrorsFromIssues } from '../validation/field-errors.js';
import { contractSchema } from './account-payload-contracts.js';
import {
  accountCampaignsSchema,
  accountNoteSchema,
  businessSchema,
  customerSchema,
  metadataSchema,
  paymentPreferenceSchema,
  statementSchema,
  supplementaryLedgerSchema,
} from './account-payload-parts.js';
import { checkBusinessFields, checkPaymentPreferences, checkSupplyPointIdentifiersUnique } from './account-payload-rules.js';
import { supplyAddressSchema } from './account-payload-supply.js';
import { isoDate } from './iso-dates.js';
import { MAX_LINE, choice, postcode, requiredText, text, whenClean } from './payload-fields.js';

export { contractSchema, contractTermSchema, contractVersionSchema, TERM_TYPES } from './account-payload-contracts.js';
export type { Contract, ContractTerm } from './account-payload-contracts.js';

export const ACCOUNT_TYPES = ['DOMESTIC', 'BUSINESS'] as const;

/**
 * The account validate/stage payload (spec 2.2). Unknown fields are stripped, never an
 * error (spec 2.1). Field rules live on the nested schemas; the rules relating different
 * parts of the payload are the refinements below.
 */
export const accountPayloadSchema = z
  .object({
    external_account_number: requiredText(128),
    import_supplier: requiredText(),
    account_type: choice(ACCOUNT_TYPES).optional(),
    business: businessSchema.optional(),
    unknown_occupier: z.boolean().optional(),
    billing_address1: text(MAX_LINE).optional(),
    billing_address2: text(MAX_LINE).optional(),
    billing_address3: text(MAX_LINE).optional(),
    billing_address4: text(MAX_LINE).optional(),
    billing_postcode: postcode({ allowEmpty: true }).optional(),
    sales_channel: z.string().optional(),
    sales_subchannel: z.string().optional(),
    last_billed_to_date: isoDate().optional(),
    customers: z.array(customerSchema).min(1),
    supply_addresses: z.array(supplyAddressSchema).min(1),
    statements: z.array(statementSchema).optional(),
    supplementary_ledgers: z.array(supplementaryLedgerSchema).optional(),
    notes: z.array(accountNoteSchema).optional(),
    account_campaigns: accountCampaignsSchema.optional(),
    metadata: metadataSchema.optional(),
    account_contracts: z.array(contractSchema).optional(),
    payment_preferences: z.array(paymentPreferenceSchema).optional(),
  })
  .superRefine(checkSupplyPointIdentifiersUnique, whenClean(['supply_addresses']))
  .superRefine(checkPaymentPreferences, whenClean(['supply_addresses'], ['payment_preferences']))
  .superRefine(checkBusinessFields, whenClean(['account_type']));

export type AccountPayload = z.output<typeof accountPayloadSchema>;

export type AccountPayloadValidation = { ok: true; data: AccountPayload } | { ok: false; errors: FieldError[] };

/** Parses an account payload; on failure every problem found is returned as a FieldError. */
export function validateAccountPayload(input: unknown): AccountPayloadValidation {
  const result = accountPayloadSchema.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, data: result.data };
  return { ok: false, errors: fieldErrorsFromIssues(result.error.issues) };
}
