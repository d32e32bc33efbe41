import { z } from 'zod';
import { SUPPLY_TYPES } from './identifiers.js';
import { isoDate } from './iso-dates.js';
import { choice, jsonObject, money, requiredText, type SchemaForm } from './payload-fields.js';

export const TERM_TYPES = [
  'CONTRACT_METADATA',
  'PRODUCT_RATE_OVERRIDE_SCHEDULE',
  'TERMINATION_FEE',
  'ISSUANCE_FREQUENCY',
  'GUARANTEE_OF_ORIGIN_CONFIGURATION',
  'PAYS_BY_DIRECT_DEBIT',
  'DELAYER_DAYS',
  'RATE_GROUP_ELIGIBILITY',
  'CHARACTERISTIC_OVERRIDE',
] as const;

/** Decimal string in major units, the platform's money pattern (up to 10 + 10 digits). */
const decimalString = () =>
  z.string().regex(/^-?\d{1,10}(?:\.\d{1,10})?$/, { message: 'A decimal number is required, e.g. "0.1890".' });

/**
 * Contract schemas (spec 2.3), shared by account_contracts and the business-create
 * payload's business_contracts, in either form (payload-fields.ts). Enumerations the spec
 * does not list (fee_type, strategy, frequency) stay free non-blank strings: the platform
 * owns those lists.
 */
export function contractSchemas(form: SchemaForm) {
  const contractMetadataTerm = z.object({
    term_type: z.literal('CONTRACT_METADATA'),
    metadata: jsonObject(form),
  });

  const productRateOverrideScheduleTerm = z.object({
    term_type: z.literal('PRODUCT_RATE_OVERRIDE_SCHEDULE'),
    schedules: z.array(
      z.object({
        effective_from: isoDate(),
        items: z.array(
          z.object({
            price_per_unit: decimalString(),
            rate_band: requiredText(),
            product_code: requiredText(),
          }),
        ),
      }),
    ),
  });

  const terminationFeeTerm = z.object({
    term_type: z.literal('TERMINATION_FEE'),
    amount: money(),
    supply_type: choice(SUPPLY_TYPES),
    fee_type: requiredText(),
  });

  const issuanceFrequencyTerm = z.object({
    term_type: z.literal('ISSUANCE_FREQUENCY'),
    frequency: requiredText(),
    multiplier: z.int().min(1),
    period_start_day: z.int().min(1).max(31),
    period_start_month: z.int().min(1).max(12),
  });

  const guaranteeOfOriginTerm = z.object({
    term_type: z.literal('GUARANTEE_OF_ORIGIN_CONFIGURATION'),
    guarantee_of_origin_percentage: z.int().min(0).max(100),
    is_variable: z.boolean(),
  });

  const paysByDirectDebitTerm = z.object({
    term_type: z.literal('PAYS_BY_DIRECT_DEBIT'),
    pays_by_direct_debit: z.boolean(),
  });

  const delayerDaysTerm = z.object({
    term_type: z.literal('DELAYER_DAYS'),
    strategy: requiredText(),
    days: z.int().min(0),
  });

  const rateGroupEligibilityTerm = z.object({
    term_type: z.literal('RATE_GROUP_ELIGIBILITY'),
    // Only the empty list has been seen; its items' shape is not documented.
    time_series_specification_schedules: z.array(jsonObject(form)).optional(),
    schedules: z.array(
      z.object({
        effective_period: z.object({ start_date: isoDate(), end_date: isoDate().optional() }),
        product_code: requiredText(),
        rate_group_code: requiredText(),
        is_eligible: z.boolean(),
      }),
    ),
  });

  const characteristicOverrideTerm = z.object({
    term_type: z.literal('CHARACTERISTIC_OVERRIDE'),
    overrides: z.array(z.object({ characteristic_code: requiredText(), override_value: z.string() })),
  });

  const termUnion = z.discriminatedUnion('term_type', [
    contractMetadataTerm,
    productRateOverrideScheduleTerm,
    terminationFeeTerm,
    issuanceFrequencyTerm,
    guaranteeOfOriginTerm,
    paysByDirectDebitTerm,
    delayerDaysTerm,
    rateGroupEligibilityTerm,
    characteristicOverrideTerm,
  ]);

  /**
   * A contract term, discriminated on term_type. The loose guard first checks the
   * discriminator itself so that a missing, null or unknown term_type is reported at
   * `...terms.N.term_type` as required / null / invalid_choice rather than as a bare
   * union failure.
   */
  const contractTermSchema = z.looseObject({ term_type: choice(TERM_TYPES) }).pipe(termUnion);

  const contractVersionSchema = z.object({
    applicable_at_date: isoDate(),
    terms: z.array(contractTermSchema),
  });

  const contractSchema = z.object({
    identifier: requiredText(128),
    valid_from_date: isoDate(),
    signed_at_date: isoDate().optional(),
    versions: z.array(contractVersionSchema).min(1),
  });

  return { contractTermSchema, contractVersionSchema, contractSchema };
}

export const { contractTermSchema, contractVersionSchema, contractSchema } = contractSchemas('report');

export type ContractTerm = z.output<typeof contractTermSchema>;
export type Contract = z.output<typeof contractSchema>;
