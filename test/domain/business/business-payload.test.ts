import { describe, expect, it } from 'vitest';
import { validateBusinessPayload } from '../../../src/domain/business/business-payload.js';
import { businessExample, type BusinessInput } from './business-fixtures.js';

const TERM = 'business.business_contracts.0.versions.0.terms';

function errorsOf(input: BusinessInput) {
  const result = validateBusinessPayload(input);
  return result.ok ? [] : result.errors.map(({ code, attr }) => ({ code, attr }));
}

function broken(mutate: (payload: BusinessInput) => void) {
  const payload = businessExample();
  mutate(payload);
  return errorsOf(payload);
}

describe('business-create payload (spec 2.4, contracts 2.3)', () => {
  it('accepts the example and returns it unchanged', () => {
    const result = validateBusinessPayload(businessExample());
    expect(result).toEqual({ ok: true, data: businessExample() });
  });

  it('drops unknown fields without an error', () => {
    const payload = businessExample();
    payload.legacy = 1;
    payload.business.segment = 'PRO';
    payload.business.business_contracts[0].sales_record = {};
    const result = validateBusinessPayload(payload);
    expect(result).toEqual({ ok: true, data: businessExample() });
  });

  it('accepts a business without details, and one with an empty list of contracts', () => {
    expect(broken((p) => delete p.business.details)).toEqual([]);
    expect(broken((p) => (p.business.business_contracts = []))).toEqual([]);
  });

  it('a body that is not an object is invalid as a whole', () => {
    expect(errorsOf([businessExample()])).toEqual([{ code: 'invalid', attr: 'non_field_errors' }]);
  });

  it.each([
    ['import_supplier_code', (p: BusinessInput) => delete p.import_supplier_code, 'required'],
    ['external_business_identifier', (p: BusinessInput) => (p.external_business_identifier = ' '), 'blank'],
    ['external_business_identifier', (p: BusinessInput) => (p.external_business_identifier = 'X'.repeat(129)), 'max_length'],
    ['business', (p: BusinessInput) => delete p.business, 'required'],
    ['business.business_type', (p: BusinessInput) => delete p.business.business_type, 'required'],
    ['business.company_name', (p: BusinessInput) => (p.business.company_name = ''), 'blank'],
    ['business.company_name', (p: BusinessInput) => (p.business.company_name = null), 'null'],
    ['business.siret', (p: BusinessInput) => (p.business.siret = '44306184100048'), 'invalid_siret'],
    ['business.siret', (p: BusinessInput) => (p.business.siret = '4430618410004'), 'invalid_siret'],
    ['business.business_contracts', (p: BusinessInput) => delete p.business.business_contracts, 'required'],
    ['business.business_contracts', (p: BusinessInput) => (p.business.business_contracts = {}), 'not_a_list'],
    ['business.details.0.key', (p: BusinessInput) => (p.business.details[0].key = ''), 'blank'],
    ['business.business_contracts.0.identifier', (p: BusinessInput) => delete p.business.business_contracts[0].identifier, 'required'],
    ['business.business_contracts.0.valid_from_date', (p: BusinessInput) => (p.business.business_contracts[0].valid_from_date = '2025-02-30'), 'invalid'],
    ['business.business_contracts.0.versions', (p: BusinessInput) => (p.business.business_contracts[0].versions = []), 'empty'],
  ])('%s: %s', (attr, mutate, code) => {
    expect(broken(mutate)).toEqual([{ code, attr }]);
  });

  it('rejects an unknown term type with invalid_choice at the term_type', () => {
    expect(broken((p) => (p.business.business_contracts[0].versions[0].terms[2].term_type = 'LOYALTY_BONUS'))).toEqual([
      { code: 'invalid_choice', attr: `${TERM}.2.term_type` },
    ]);
  });

  it('checks every term type field by field, at paths into the business', () => {
    expect(
      broken((p) => {
        const terms = p.business.business_contracts[0].versions[0].terms;
        terms[1].schedules[0].items[0].price_per_unit = 0.189;
        terms[2].amount = -1;
        delete terms[4].schedules[0].rate_group_code;
      }),
    ).toEqual([
      { code: 'invalid', attr: `${TERM}.1.schedules.0.items.0.price_per_unit` },
      { code: 'min_value', attr: `${TERM}.2.amount` },
      { code: 'required', attr: `${TERM}.4.schedules.0.rate_group_code` },
    ]);
  });

  it('reports a repeated contract identifier at the later contract', () => {
    expect(
      broken((p) => {
        const first = p.business.business_contracts[0];
        p.business.business_contracts.push(structuredClone(first), { ...structuredClone(first), identifier: 'CTR-OTHER' }, structuredClone(first));
      }),
    ).toEqual([
      { code: 'duplicate_contract_identifiers', attr: 'business.business_contracts.1.identifier' },
      { code: 'duplicate_contract_identifiers', attr: 'business.business_contracts.3.identifier' },
    ]);
  });

  it('reports a repeated identifier even when another contract is broken', () => {
    expect(
      broken((p) => {
        const copy = structuredClone(p.business.business_contracts[0]);
        copy.versions[0].terms[0].term_type = 'NOPE';
        p.business.business_contracts.push(copy);
      }),
    ).toEqual([
      { code: 'invalid_choice', attr: 'business.business_contracts.1.versions.0.terms.0.term_type' },
      { code: 'duplicate_contract_identifiers', attr: 'business.business_contracts.1.identifier' },
    ]);
  });

  it('a version may not apply before the contract is valid; on or after is fine', () => {
    const versionsAt = (...dates: string[]) =>
      broken((p) => {
        const contract = p.business.business_contracts[0];
        contract.versions = dates.map((date) => ({ ...structuredClone(contract.versions[0]), applicable_at_date: date }));
      });
    expect(versionsAt('2025-01-01', '2025-06-01')).toEqual([]);
    expect(versionsAt('2024-12-31', '2025-06-01', '2024-01-01')).toEqual([
      { code: 'version_applicable_before_contract_valid_from', attr: 'business.business_contracts.0.versions.0.applicable_at_date' },
      { code: 'version_applicable_before_contract_valid_from', attr: 'business.business_contracts.0.versions.2.applicable_at_date' },
    ]);
  });

  it('checks version dates even when a term of the contract is broken', () => {
    expect(
      broken((p) => {
        const version = p.business.business_contracts[0].versions[0];
        version.applicable_at_date = '2024-12-01';
        version.terms[3].multiplier = 0;
      }),
    ).toEqual([
      { code: 'min_value', attr: `${TERM}.3.multiplier` },
      { code: 'version_applicable_before_contract_valid_from', attr: 'business.business_contracts.0.versions.0.applicable_at_date' },
    ]);
  });

  it('does not compare dates when one of them is itself invalid', () => {
    expect(broken((p) => (p.business.business_contracts[0].valid_from_date = '2025-13-01'))).toEqual([
      { code: 'invalid', attr: 'business.business_contracts.0.valid_from_date' },
    ]);
  });

  it('reports a repeated detail key at the later detail', () => {
    expect(broken((p) => p.business.details.push({ key: 'siren', value: 'x' }))).toEqual([
      { code: 'children_with_duplicate_values', attr: 'business.details.2.key' },
    ]);
  });
});
