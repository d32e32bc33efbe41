import { describe, expect, it } from 'vitest';
import { fieldErrorsFromIssues } from '../../../src/domain/validation/field-errors.js';
import {
  MAX_IDENTIFIERS_PER_BATCH,
  populateIdentifierErrors,
  populateRequestSchema,
} from '../../../src/domain/supply-point/populate-request.js';
import { loadExample } from '../../support/ledger.js';

const prm = (n: number) => String(10_000_000_000_000 + n).padStart(14, '0');
const errorsOf = (body: unknown) => {
  const parsed = populateRequestSchema.safeParse(body, { reportInput: true });
  return parsed.success ? [] : fieldErrorsFromIssues(parsed.error.issues).map(({ code, attr }) => ({ code, attr }));
};

describe('populate request validation', () => {
  it('accepts the spec example (PRM 14 digits; PCE 14 digits or GI + 6 digits)', () => {
    const parsed = populateRequestSchema.parse(loadExample('supply-point-populate.json'));
    expect(parsed).toEqual({
      prm_ids: ['09111642617347', '30002851234567'],
      pce_ids: ['21461231498752', 'GI123456'],
      customer_category: 'Domestic',
    });
  });

  it('treats a missing list as empty and drops unknown fields', () => {
    expect(populateRequestSchema.parse({ pce_ids: ['GI000001'], customer_category: 'Business', extra: 1 })).toEqual({
      prm_ids: [],
      pce_ids: ['GI000001'],
      customer_category: 'Business',
    });
  });

  it('reports each malformed identifier at its index, with the platform code', () => {
    expect(errorsOf({ prm_ids: ['0911164261734', 'GI123456', prm(1)], pce_ids: ['GI12345', 'XX123456'], customer_category: 'Domestic' })).toEqual([
      { code: 'invalid_supply_point_identifier', attr: 'prm_ids.0' },
      { code: 'invalid_supply_point_identifier', attr: 'prm_ids.1' },
      { code: 'invalid_supply_point_identifier', attr: 'pce_ids.0' },
      { code: 'invalid_supply_point_identifier', attr: 'pce_ids.1' },
    ]);
  });

  it('refuses an identifier repeated within its list, but allows the same digits as a PRM and a PCE', () => {
    expect(errorsOf({ prm_ids: [prm(1), prm(2), prm(1)], customer_category: 'Domestic' })).toEqual([
      { code: 'duplicate_supply_point_identifier', attr: 'prm_ids.2' },
    ]);
    expect(errorsOf({ prm_ids: [prm(1)], pce_ids: [prm(1)], customer_category: 'Domestic' })).toEqual([]);
  });

  it('needs at least one identifier and at most 1,000 in all', () => {
    expect(errorsOf({ customer_category: 'Domestic' })).toEqual([{ code: 'no_supply_point_identifiers', attr: 'non_field_errors' }]);
    expect(errorsOf({ prm_ids: [], pce_ids: [], customer_category: 'Domestic' })).toEqual([{ code: 'no_supply_point_identifiers', attr: 'non_field_errors' }]);
    const half = Array.from({ length: 500 }, (_, i) => prm(i));
    expect(errorsOf({ prm_ids: half, pce_ids: half, customer_category: 'Domestic' })).toEqual([]);
    expect(errorsOf({ prm_ids: [...half, prm(999)], pce_ids: half, customer_category: 'Domestic' })).toEqual([
      { code: 'too_many_supply_point_identifiers', attr: 'non_field_errors' },
    ]);
    const tooLong = Array.from({ length: MAX_IDENTIFIERS_PER_BATCH + 1 }, (_, i) => prm(i));
    expect(errorsOf({ prm_ids: tooLong, customer_category: 'Domestic' })).toEqual(
      expect.arrayContaining([{ code: 'max_length', attr: 'prm_ids' }]),
    );
  });

  it('needs a customer category from the documented list, and lists of strings', () => {
    expect(errorsOf({ prm_ids: [prm(1)] })).toEqual([{ code: 'required', attr: 'customer_category' }]);
    expect(errorsOf({ prm_ids: [prm(1)], customer_category: 'Residential' })).toEqual([{ code: 'invalid_choice', attr: 'customer_category' }]);
    expect(errorsOf({ prm_ids: prm(1), customer_category: 'Domestic' })).toEqual([{ code: 'not_a_list', attr: 'prm_ids' }]);
    expect(errorsOf({ prm_ids: [42], customer_category: 'Domestic' })).toEqual([{ code: 'invalid', attr: 'prm_ids.0' }]);
    expect(errorsOf([])).toEqual([{ code: 'invalid', attr: 'non_field_errors' }]);
  });

  it('populateIdentifierErrors is the same rule the decider re-checks', () => {
    expect(populateIdentifierErrors([prm(1)], ['GI123456'])).toEqual([]);
    expect(populateIdentifierErrors([], []).map((e) => e.code)).toEqual(['no_supply_point_identifiers']);
  });
});
