import { FAIL, array, boolean, int, json, object, oneOf, optional, record, requiredText, string, stringWhere, type Check } from '../validation/fast-checks.js';
import { TERM_TYPES } from './account-payload-contracts.js';
import { SUPPLY_TYPES } from './identifiers.js';
import { isoDate, money } from './payload-fields-fast.js';

/** account-payload-contracts.ts as plain checks, for the account payload's fast path (account-payload-fast.ts). */

const decimalString = stringWhere((value) => /^-?\d{1,10}(?:\.\d{1,10})?$/.test(value));

const term = (type: string, shape: Record<string, Check | ReturnType<typeof optional>>) => object({ term_type: oneOf([type]), ...shape });

const termBranches: Readonly<Record<(typeof TERM_TYPES)[number], Check>> = {
  CONTRACT_METADATA: term('CONTRACT_METADATA', { metadata: record(json) }),
  PRODUCT_RATE_OVERRIDE_SCHEDULE: term('PRODUCT_RATE_OVERRIDE_SCHEDULE', {
    schedules: array(
      object({
        effective_from: isoDate,
        items: array(object({ price_per_unit: decimalString, rate_band: requiredText(), product_code: requiredText() })),
      }),
    ),
  }),
  TERMINATION_FEE: term('TERMINATION_FEE', { amount: money, supply_type: oneOf(SUPPLY_TYPES), fee_type: requiredText() }),
  ISSUANCE_FREQUENCY: term('ISSUANCE_FREQUENCY', {
    frequency: requiredText(),
    multiplier: int(1),
    period_start_day: int(1, 31),
    period_start_month: int(1, 12),
  }),
  GUARANTEE_OF_ORIGIN_CONFIGURATION: term('GUARANTEE_OF_ORIGIN_CONFIGURATION', {
    guarantee_of_origin_percentage: int(0, 100),
    is_variable: boolean,
  }),
  PAYS_BY_DIRECT_DEBIT: term('PAYS_BY_DIRECT_DEBIT', { pays_by_direct_debit: boolean }),
  DELAYER_DAYS: term('DELAYER_DAYS', { strategy: requiredText(), days: int(0) }),
  RATE_GROUP_ELIGIBILITY: term('RATE_GROUP_ELIGIBILITY', {
    time_series_specification_schedules: optional(array(record(json))),
    schedules: array(
      object({
        effective_period: object({ start_date: isoDate, end_date: optional(isoDate) }),
        product_code: requiredText(),
        rate_group_code: requiredText(),
        is_eligible: boolean,
      }),
    ),
  }),
  CHARACTERISTIC_OVERRIDE: term('CHARACTERISTIC_OVERRIDE', {
    overrides: array(object({ characteristic_code: requiredText(), override_value: string() })),
  }),
};

const termType = oneOf(TERM_TYPES);
/** The guard on term_type, then its branch (contractTermSchema). */
const contractTerm: Check = (value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return FAIL;
  const type = (value as Record<string, unknown>)['term_type'];
  if (termType(type) === FAIL) return FAIL;
  return termBranches[type as (typeof TERM_TYPES)[number]](value);
};

const contract = object({
  identifier: requiredText(128),
  valid_from_date: isoDate,
  signed_at_date: optional(isoDate),
  versions: array(object({ applicable_at_date: isoDate, terms: array(contractTerm) }), 1),
});

export const accountContractsFast = array(contract);
