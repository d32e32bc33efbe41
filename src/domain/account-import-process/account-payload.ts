import { z } from 'zod';
import { validateWith, type Validation } from '../validation/field-errors.js';
import { contractSchemas } from './account-payload-contracts.js';
import { accountPartSchemas } from './account-payload-parts.js';
import { checkBusinessFields, checkPaymentPreferences, checkSupplyPointIdentifiersUnique } from './account-payload-rules.js';
import { supplyAddressSchemaIn } from './account-payload-supply.js';
import { isoDate } from './iso-dates.js';
import { MAX_LINE, choice, postcode, requiredText, text, whenCleanIn, type SchemaForm } from './payload-fields.js';

export { contractSchema, contractTermSchema, contractVersionSchema, TERM_TYPES } from './account-payload-contracts.js';
export type { Contract, ContractTerm } from './account-payload-contracts.js';

export const ACCOUNT_TYPES = ['DOMESTIC', 'BUSINESS'] as const;

/**
 * The account validate/stage payload (spec 2.2), in either form (payload-fields.ts). Unknown
 * fields are stripped, never an error (spec 2.1). Field rules live on the nested schemas; the
 * rules relating different parts of the payload are the refinements below.
 */
function accountPayloadSchemaIn(form: SchemaForm) {
  const parts = accountPartSchemas(form);
  return z
    .object({
      external_account_number: requiredText(128),
      import_supplier: requiredText(),
      account_type: choice(ACCOUNT_TYPES).optional(),
      business: parts.businessSchema.optional(),
      unknown_occupier: z.boolean().optional(),
      billing_address1: text(MAX_LINE).optional(),
      billing_address2: text(MAX_LINE).optional(),
      billing_address3: text(MAX_LINE).optional(),
      billing_address4: text(MAX_LINE).optional(),
      billing_postcode: postcode({ allowEmpty: true }).optional(),
      sales_channel: z.string().optional(),
      sales_subchannel: z.string().optional(),
      last_billed_to_date: isoDate().optional(),
      customers: z.array(parts.customerSchema).min(1),
      supply_addresses: z.array(supplyAddressSchemaIn(form)).min(1),
      statements: z.array(parts.statementSchema).optional(),
      supplementary_ledgers: z.array(parts.supplementaryLedgerSchema).optional(),
      notes: z.array(parts.accountNoteSchema).optional(),
      account_campaigns: parts.accountCampaignsSchema.optional(),
      metadata: parts.metadataSchema.optional(),
      account_contracts: z.array(contractSchemas(form).contractSchema).optional(),
      payment_preferences: z.array(parts.paymentPreferenceSchema).optional(),
    })
    .superRefine(checkSupplyPointIdentifiersUnique, whenCleanIn(form, ['supply_addresses']))
    .superRefine(checkPaymentPreferences, whenCleanIn(form, ['supply_addresses'], ['payment_preferences']))
    .superRefine(checkBusinessFields, whenCleanIn(form, ['account_type']));
}

/** The account payload's schema of record: documented, and the one that reports a refused payload's issues. */
export const accountPayloadSchema = accountPayloadSchemaIn('report');

/**
 * The same rules compiled by zod into one function: what a payload that passes costs. `strict`: a rule
 * zod cannot compile fails at load, instead of leaving every payload on the slower path unnoticed.
 */
const compiledAcceptForm = z.compile(accountPayloadSchemaIn('accept'), { strict: true });

export type AccountPayload = z.output<typeof accountPayloadSchema>;

/**
 * Parses an account payload (a parsed JSON value: a request body, a stored payload); on failure every
 * problem found is returned as a FieldError.
 */
export function validateAccountPayload(input: unknown): Validation<AccountPayload> {
  const accepted = compiledAcceptForm.safeParse(input);
  return accepted.success ? { ok: true, data: accepted.data } : validateWith(accountPayloadSchema, input);
}
