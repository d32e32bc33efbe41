import { z } from 'zod';
import { isoDate, isoDateTime } from './iso-dates.js';
import {
  MAX_LINE,
  addDomainIssue,
  choice,
  datesInOrder,
  jsonObject,
  noteHasContent,
  phoneNumber,
  requiredText,
  siret,
  text,
  uniqueBy,
  whenCleanIn,
  type SchemaForm,
} from './payload-fields.js';

export const ENERGY_CHEQUE_SOURCES = ['PAPER', 'PAPERLESS'] as const;
export const ENERGY_CHEQUE_STATUSES = ['VALID', 'USED', 'EXPIRED', 'CANCELLED'] as const;
export const PAYMENT_PREFERENCE_TYPES = ['ACTIVE_EXISTING', 'ACTIVE_NEW', 'PASSIVE'] as const;
export const PASSIVE_WITH_INSTRUCTION = 'passive_payment_preference_with_instruction_reference_params';

/** Account-level parts of the account payload (spec 2.2) other than supply addresses, in either form (payload-fields.ts). */
export function accountPartSchemas(form: SchemaForm) {
  const customerPreferencesSchema = z.object({
    opted_into_updates: z.boolean(),
    opted_into_sms: z.boolean(),
    opted_into_offers: z.boolean(),
    opted_into_recommended: z.boolean(),
  });

  const customerSchema = z.object({
    title: text(20).optional(),
    given_name: requiredText(255),
    family_name: requiredText(255),
    email: z.email().max(254).optional(),
    mobile: phoneNumber().optional(),
    landline: phoneNumber().optional(),
    deceased: z.string().optional(),
    date_of_birth: isoDate().optional(),
    customer_preferences: customerPreferencesSchema.optional(),
  });

  const businessSchema = z.object({
    business_type: requiredText(),
    // Documented on the business-create payload (spec 2.4); accepted here so it is not dropped.
    company_name: text(255).optional(),
    siret: siret(),
    business_contract_identifier: requiredText(128).optional(),
    details: z.array(z.object({ key: requiredText(), value: z.string() })).optional(),
  });

  const statementSchema = z
    .object({
      bill_period_from_date: isoDate(),
      bill_period_to_date: isoDate(),
      statement_path: requiredText(),
      statement_id: requiredText(),
    })
    .superRefine(...datesInOrder(form, 'bill_period_from_date', 'bill_period_to_date'));

  const energyChequeSchema = z
    .object({
      number: requiredText(),
      protection_from: isoDate(),
      protection_to: isoDate(),
      source: choice(ENERGY_CHEQUE_SOURCES),
      asp_remittance_ref: z.string().optional(),
      amount: z.int().min(0),
      valid_to: isoDate(),
      status: choice(ENERGY_CHEQUE_STATUSES),
    })
    .superRefine(...datesInOrder(form, 'protection_from', 'protection_to'));

  const supplementaryLedgerSchema = z.object({
    ledger_code: choice(['ENERGY_CHEQUE_LEDGER']),
    energy_cheques: z.array(energyChequeSchema),
  });

  const accountNoteSchema = z
    .object({
      created_at: isoDateTime().optional(),
      body: z.string().optional(),
      document_paths: z.array(z.object({ document_path: requiredText() })).optional(),
    })
    .superRefine(...noteHasContent(form));

  const accountCampaignsSchema = z
    .array(z.object({ slug: requiredText(), campaign_note: z.string().optional() }))
    .superRefine(...uniqueBy(form, 'slug', 'duplicate_account_campaigns'));

  const metadataSchema = z
    .array(z.object({ key: requiredText(1024), value: jsonObject(form) }))
    .superRefine(...uniqueBy(form, 'key', 'metadata_has_duplicate_keys'));

  const instructionReferenceParamsSchema = z.object({
    vendor_name: requiredText(),
    vendor_reference: requiredText(MAX_LINE),
  });

  const paymentPreferenceUnion = z.discriminatedUnion('type', [
    z.object({
      type: z.literal('ACTIVE_EXISTING'),
      supply_point_identifier: requiredText(),
      instruction_reference_params: instructionReferenceParamsSchema,
    }),
    z.object({
      type: z.literal('ACTIVE_NEW'),
      supply_point_identifier: requiredText(),
      instruction_reference_params: instructionReferenceParamsSchema,
    }),
    z.object({ type: z.literal('PASSIVE'), supply_point_identifier: requiredText() }),
  ]);

  /**
   * Guarded like contract terms: a bad `type` is reported at `payment_preferences.N.type`.
   * The guard also sees the raw keys, so it is where a PASSIVE preference carrying
   * instruction_reference_params is caught (a passive preference pays by no instruction,
   * so any value there is a caller mistake); the PASSIVE branch itself has no such field.
   */
  const paymentPreferenceSchema = z
    .looseObject({ type: choice(PAYMENT_PREFERENCE_TYPES) })
    .superRefine((preference, ctx) => {
      if (preference.type === 'PASSIVE' && preference['instruction_reference_params'] !== undefined) {
        addDomainIssue(
          ctx,
          PASSIVE_WITH_INSTRUCTION,
          'A PASSIVE payment preference must not have instruction_reference_params.',
          ['instruction_reference_params'],
        );
      }
    }, whenCleanIn(form, ['type']))
    .pipe(paymentPreferenceUnion);

  return {
    customerSchema,
    businessSchema,
    statementSchema,
    supplementaryLedgerSchema,
    accountNoteSchema,
    accountCampaignsSchema,
    metadataSchema,
    paymentPreferenceSchema,
  };
}

type Parts = ReturnType<typeof accountPartSchemas>;
export type Customer = z.output<Parts['customerSchema']>;
export type Business = z.output<Parts['businessSchema']>;

