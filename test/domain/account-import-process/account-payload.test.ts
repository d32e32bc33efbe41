import { describe, expect, it } from 'vitest';
import { validateAccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import { business, domestic, expectError, expectValid, setAt, supplyPoint } from './account-payload-fixtures.js';

describe('validateAccountPayload: the examples', () => {
  it.each([
    ['domestic', domestic],
    ['business', business],
  ])('accepts the %s example and returns it unchanged', (_name, example) => {
    const input = example();
    const result = validateAccountPayload(input);
    expect(result).toStrictEqual({ ok: true, data: example() });
  });

  it('drops unknown fields at the top level and in nested objects, without an error', () => {
    const input = domestic();
    setAt(input, 'legacy_flag', true);
    setAt(input, 'customers.0.nickname', 'Clo');
    setAt(input, 'supply_addresses.0.supply_points.0.agreements.0.legacy_tariff', 'OLD');
    setAt(input, 'payment_preferences.0.ledger_identifier', 'MAIN');
    setAt(input, 'payment_preferences.0.instruction_reference_params.extra', 1);
    const result = validateAccountPayload(input);
    expect(result).toStrictEqual({ ok: true, data: domestic() });
  });

  it('drops unknown fields inside contract terms', () => {
    const input = business();
    setAt(input, 'account_contracts.0.versions.0.terms.1.note', 'n/a');
    setAt(input, 'business.legacy_code', 'X');
    expect(validateAccountPayload(input)).toStrictEqual({ ok: true, data: business() });
  });

  it('reports several independent problems at once, cross-field rules included', () => {
    const input = domestic();
    setAt(input, 'customers.0.mobile', 'abcde');
    setAt(input, 'billing_postcode', '7501');
    supplyPoint(input, 0, 1).identifier = supplyPoint(input).identifier;
    setAt(input, 'account_contracts', []);
    const result = validateAccountPayload(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map(({ code, attr }) => ({ code, attr }))).toEqual(
      expect.arrayContaining([
        { code: 'invalid_phone_number', attr: 'customers.0.mobile' },
        { code: 'invalid_postcode', attr: 'billing_postcode' },
        { code: 'duplicate_meter_points_provided', attr: 'supply_addresses.0.supply_points.1.identifier' },
        { code: 'business_fields_provided_for_domestic_accounts', attr: 'account_contracts' },
      ]),
    );
    for (const error of result.errors) expect(Object.keys(error).sort()).toEqual(['attr', 'code', 'detail']);
  });

  it('reports a body that is not an object at attr non_field_errors', () => {
    expectError(null, 'null', 'non_field_errors');
    expectError([], 'invalid', 'non_field_errors');
    expectError('account', 'invalid', 'non_field_errors');
  });
});

describe('account-level fields', () => {
  it('external_account_number: missing -> required, null -> null, number -> invalid', () => {
    expectError(setAt(domestic(), 'external_account_number', undefined), 'required', 'external_account_number');
    expectError(setAt(domestic(), 'external_account_number', null), 'null', 'external_account_number');
    expectError(setAt(domestic(), 'external_account_number', 42), 'invalid', 'external_account_number');
  });

  it('external_account_number: 128 characters pass, 129 -> max_length, empty -> blank', () => {
    expectValid(setAt(domestic(), 'external_account_number', 'A'.repeat(128)));
    expectError(setAt(domestic(), 'external_account_number', 'A'.repeat(129)), 'max_length', 'external_account_number');
    expectError(setAt(domestic(), 'external_account_number', ''), 'blank', 'external_account_number');
  });

  it('import_supplier: required, not blank', () => {
    expectError(setAt(domestic(), 'import_supplier', undefined), 'required', 'import_supplier');
    expectError(setAt(domestic(), 'import_supplier', '  '), 'blank', 'import_supplier');
  });

  it('account_type: DOMESTIC or BUSINESS, else invalid_choice', () => {
    expectValid(setAt(domestic(), 'account_type', 'DOMESTIC'));
    expectError(setAt(domestic(), 'account_type', 'MANAGED'), 'invalid_choice', 'account_type');
  });

  it('customers: missing -> required, [] -> empty, not a list -> not_a_list', () => {
    expectError(setAt(domestic(), 'customers', undefined), 'required', 'customers');
    expectError(setAt(domestic(), 'customers', []), 'empty', 'customers');
    expectError(setAt(domestic(), 'customers', { given_name: 'A' }), 'not_a_list', 'customers');
  });

  it('supply_addresses and supply_points: at least one each', () => {
    expectError(setAt(domestic(), 'supply_addresses', undefined), 'required', 'supply_addresses');
    expectError(setAt(domestic(), 'supply_addresses', []), 'empty', 'supply_addresses');
    expectError(setAt(domestic(), 'supply_addresses.0.supply_points', []), 'empty', 'supply_addresses.0.supply_points');
  });

  it('billing address lines may be empty, at most 512 characters', () => {
    expectValid(setAt(domestic(), 'billing_address1', ''));
    expectError(setAt(domestic(), 'billing_address4', 'x'.repeat(513)), 'max_length', 'billing_address4');
  });

  it('billing_postcode: empty or five digits, else invalid_postcode', () => {
    expectValid(setAt(domestic(), 'billing_postcode', ''));
    expectValid(setAt(domestic(), 'billing_postcode', undefined));
    expectError(setAt(domestic(), 'billing_postcode', '7501'), 'invalid_postcode', 'billing_postcode');
    expectError(setAt(domestic(), 'billing_postcode', '75O11'), 'invalid_postcode', 'billing_postcode');
  });

  it('unknown_occupier is a boolean and last_billed_to_date a real date', () => {
    expectError(setAt(domestic(), 'unknown_occupier', 'no'), 'invalid', 'unknown_occupier');
    expectError(setAt(domestic(), 'last_billed_to_date', '2025-06-31'), 'invalid', 'last_billed_to_date');
  });
});

describe('customers', () => {
  it('given_name and family_name are required and not blank', () => {
    expectError(setAt(domestic(), 'customers.0.given_name', undefined), 'required', 'customers.0.given_name');
    expectError(setAt(domestic(), 'customers.0.family_name', ''), 'blank', 'customers.0.family_name');
    expectError(setAt(domestic(), 'customers.0.family_name', null), 'null', 'customers.0.family_name');
  });

  it('email is optional but must be valid when given', () => {
    expectValid(setAt(domestic(), 'customers.0.email', undefined));
    expectError(setAt(domestic(), 'customers.0.email', 'claire.dubois'), 'invalid', 'customers.0.email');
  });

  it('mobile and landline: empty, French or international, else invalid_phone_number', () => {
    expectValid(setAt(domestic(), 'customers.0.mobile', ''));
    expectValid(setAt(domestic(), 'customers.0.mobile', '06 12 34 56 78'));
    expectValid(setAt(domestic(), 'customers.0.landline', '+44 20 7946 0958'));
    expectError(setAt(domestic(), 'customers.0.landline', 'abcde'), 'invalid_phone_number', 'customers.0.landline');
    expectError(setAt(domestic(), 'customers.0.mobile', '+3361234567'), 'invalid_phone_number', 'customers.0.mobile');
  });

  it('date_of_birth must be a real calendar date', () => {
    expectError(setAt(domestic(), 'customers.0.date_of_birth', '1984-02-30'), 'invalid', 'customers.0.date_of_birth');
    expectError(setAt(domestic(), 'customers.0.date_of_birth', '12/03/1984'), 'invalid', 'customers.0.date_of_birth');
  });

  it('customer_preferences holds the four booleans', () => {
    expectError(setAt(domestic(), 'customers.0.customer_preferences.opted_into_sms', 'yes'), 'invalid', 'customers.0.customer_preferences.opted_into_sms');
    expectError(setAt(domestic(), 'customers.0.customer_preferences.opted_into_offers', undefined), 'required', 'customers.0.customer_preferences.opted_into_offers');
  });

  it('title and deceased are strings', () => {
    expectError(setAt(domestic(), 'customers.0.deceased', false), 'invalid', 'customers.0.deceased');
    expectError(setAt(domestic(), 'customers.0.title', 3), 'invalid', 'customers.0.title');
  });
});
