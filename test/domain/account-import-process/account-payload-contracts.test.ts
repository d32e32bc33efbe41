import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TERM_TYPES, contractSchema, contractTermSchema } from '../../../src/domain/account-import-process/account-payload.js';
import { fieldErrorsFromIssues } from '../../../src/domain/validation/field-errors.js';
import { loadExample } from './account-payload-fixtures.js';

/** One valid term of every type in the spec 2.3 table. */
const ONE_OF_EACH = [
  { term_type: 'CONTRACT_METADATA', metadata: { cee_formula_type: 'STANDARD' } },
  {
    term_type: 'PRODUCT_RATE_OVERRIDE_SCHEDULE',
    schedules: [{ effective_from: '2025-01-01', items: [{ price_per_unit: '0.1890', rate_band: 'BASE', product_code: 'ELEC-FIXE-2025' }] }],
  },
  { term_type: 'TERMINATION_FEE', amount: 150.0, supply_type: 'ELECTRICITY', fee_type: 'FLAT' },
  { term_type: 'ISSUANCE_FREQUENCY', frequency: 'MONTHLY', multiplier: 1, period_start_day: 1, period_start_month: 1 },
  { term_type: 'GUARANTEE_OF_ORIGIN_CONFIGURATION', guarantee_of_origin_percentage: 100, is_variable: false },
  { term_type: 'PAYS_BY_DIRECT_DEBIT', pays_by_direct_debit: true },
  { term_type: 'DELAYER_DAYS', strategy: 'FIXED', days: 30 },
  {
    term_type: 'RATE_GROUP_ELIGIBILITY',
    time_series_specification_schedules: [],
    schedules: [{ effective_period: { start_date: '2025-01-01' }, product_code: 'ELEC-FIXE-2025', rate_group_code: 'PRO-BASE', is_eligible: true }],
  },
  { term_type: 'CHARACTERISTIC_OVERRIDE', overrides: [{ characteristic_code: 'BILLING_DAY', override_value: '15' }] },
];

function codesOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input, { reportInput: true });
  return result.success ? [] : fieldErrorsFromIssues(result.error.issues).map(({ code, attr }) => ({ code, attr }));
}

describe('contractSchema', () => {
  it('covers the nine term types of spec 2.3', () => {
    expect(new Set(ONE_OF_EACH.map((term) => term.term_type))).toEqual(new Set(TERM_TYPES));
    for (const term of ONE_OF_EACH) expect(contractTermSchema.parse(term)).toEqual(term);
  });

  it('parses the business-create example contracts unchanged', () => {
    const example = loadExample('business') as { business: { business_contracts: unknown[] } };
    for (const contract of example.business.business_contracts) expect(contractSchema.parse(contract)).toEqual(contract);
  });

  it('reports term errors at paths relative to the contract', () => {
    const contract = { identifier: 'C-1', valid_from_date: '2025-01-01', versions: [{ applicable_at_date: '2025-01-01', terms: ONE_OF_EACH }] };
    expect(codesOf(contractSchema, contract)).toEqual([]);
    const broken = structuredClone(contract);
    Object.assign(broken.versions[0]!.terms[1]!, { schedules: [{ effective_from: '2025-01-01', items: [{ price_per_unit: 'cheap' }] }] });
    Object.assign(broken.versions[0]!.terms[2]!, { amount: 10.005 });
    expect(codesOf(contractSchema, broken)).toEqual(
      expect.arrayContaining([
        { code: 'invalid', attr: 'versions.0.terms.1.schedules.0.items.0.price_per_unit' },
        { code: 'required', attr: 'versions.0.terms.1.schedules.0.items.0.rate_band' },
        { code: 'max_decimal_places', attr: 'versions.0.terms.2.amount' },
      ]),
    );
  });

  it('a term that is not an object is invalid at the term path', () => {
    expect(codesOf(contractTermSchema, 'PAYS_BY_DIRECT_DEBIT')).toEqual([{ code: 'invalid', attr: 'non_field_errors' }]);
  });
});
