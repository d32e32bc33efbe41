import { describe, expect, it } from 'vitest';
import { decimalString } from '../../../src/domain/product/decimal.js';
import { validateProducts } from '../../../src/domain/product/product-payload.js';
import { exampleProducts, exampleRateUpdate, expectError, setAt, validated } from './product-fixtures.js';

const ELEC = 0;
const GAS = 1;
const elecRate = (i: number, field: string) => `${ELEC}.rates.${i}.${field}`;
const gasRate = (i: number, field: string) => `${GAS}.rates.${i}.${field}`;

describe('validateProducts: the examples', () => {
  it('accepts products.json and product-rate-update.json', () => {
    expect(validated(exampleProducts())).toHaveLength(2);
    expect(validated(exampleRateUpdate())).toHaveLength(1);
  });

  it('returns the data without unknown fields, prices as the numbers sent', () => {
    const input = exampleProducts();
    setAt(input, '0.unknown_field', 'dropped');
    setAt(input, '0.rates.0.params.colour', 'blue');
    const [elec] = validated(input);
    expect(elec).not.toHaveProperty('unknown_field');
    expect(elec?.rates[0]?.params).not.toHaveProperty('colour');
    expect(elec?.rates[0]?.price_per_unit).toBe(0.4121);
  });
});

describe('validateProducts: the body', () => {
  it('must be a non-empty list of objects', () => {
    expectError({}, 'not_a_list', 'non_field_errors');
    expectError([], 'empty', 'non_field_errors');
    expectError(['x'], 'invalid', '0');
  });
});

describe('validateProducts: product fields', () => {
  it('code is 1-128 characters of A-Z 0-9 _ -', () => {
    expectError(setAt(exampleProducts(), '0.code', ''), 'blank', '0.code');
    expectError(setAt(exampleProducts(), '0.code', 'A'.repeat(129)), 'max_length', '0.code');
    expectError(setAt(exampleProducts(), '0.code', 'elec-fixe'), 'invalid', '0.code');
    expectError(setAt(exampleProducts(), '1.code', 'GAZ FIXE'), 'invalid', '1.code');
    expectError(setAt(exampleProducts(), '0.code', undefined), 'required', '0.code');
    expect(validated(setAt(exampleProducts(), '0.code', `A_${'9'.repeat(124)}-Z`))[0]?.code).toHaveLength(128);
  });

  it('market_name is FRA_ELECTRICITY or FRA_GAS; the other fields are still checked when it is not', () => {
    expectError(setAt(exampleProducts(), '0.market_name', 'GBR_ELECTRICITY'), 'invalid_choice', '0.market_name');
    expectError(setAt(exampleProducts(), '0.market_name', undefined), 'required', '0.market_name');
    const input = setAt(setAt(exampleProducts(), '0.market_name', 'X'), '0.full_name', '');
    expectError(input, 'blank', '0.full_name');
  });

  it('names, available_from_date, params and rates are required; notes, brand, description, is_hidden optional', () => {
    for (const field of ['full_name', 'display_name', 'available_from_date', 'params', 'rates']) {
      expectError(setAt(exampleProducts(), `0.${field}`, undefined), 'required', `0.${field}`);
    }
    let input = exampleProducts();
    for (const field of ['notes', 'brand', 'description', 'is_hidden']) input = setAt(input, `0.${field}`, undefined);
    validated(input);
  });

  it('types and formats', () => {
    expectError(setAt(exampleProducts(), '0.available_from_date', '2025-02-30'), 'invalid', '0.available_from_date');
    expectError(setAt(exampleProducts(), '0.is_hidden', 'no'), 'invalid', '0.is_hidden');
    expectError(setAt(exampleProducts(), '0.rates', []), 'empty', '0.rates');
    expectError(setAt(exampleProducts(), '0.rates', {}), 'not_a_list', '0.rates');
    expectError(setAt(exampleProducts(), '0.params.next_product_code', 'next product'), 'invalid', '0.params.next_product_code');
  });

  it('electricity params need segments; gas params must not have it', () => {
    expectError(setAt(exampleProducts(), '0.params.segments', undefined), 'required', '0.params.segments');
    expectError(setAt(exampleProducts(), '0.params.segments', ''), 'blank', '0.params.segments');
    expectError(setAt(exampleProducts(), '1.params.segments', 'C5'), 'field_not_allowed', '1.params.segments');
  });
});

describe('validateProducts: rates', () => {
  it('band_category goes with its unit_type (KWH_CONSUMPION spelled so)', () => {
    expectError(setAt(exampleProducts(), elecRate(2, 'unit_type'), 'KWH_CONSUMPION'), 'unit_type_does_not_match_band_category', elecRate(2, 'unit_type'));
    expectError(setAt(exampleProducts(), gasRate(1, 'unit_type'), 'YEARS_ON_SUPPLY_PER_DIEM'), 'unit_type_does_not_match_band_category', gasRate(1, 'unit_type'));
    expectError(setAt(exampleProducts(), elecRate(1, 'unit_type'), 'KWH_CONSUMPTION'), 'invalid_choice', elecRate(1, 'unit_type'));
    expectError(setAt(exampleProducts(), elecRate(1, 'band_category'), 'FIXED_CHARGE'), 'invalid_choice', elecRate(1, 'band_category'));
  });

  it('electricity rates need provider_calendar (BASE or HPHC)', () => {
    expectError(setAt(exampleProducts(), elecRate(0, 'params.provider_calendar'), undefined), 'required', elecRate(0, 'params.provider_calendar'));
    expectError(setAt(exampleProducts(), elecRate(0, 'params.provider_calendar'), 'TEMPO'), 'invalid_choice', elecRate(0, 'params.provider_calendar'));
  });

  it('electricity consumption rates need a temp_class of their calendar; standing charges have none', () => {
    expectError(setAt(exampleProducts(), elecRate(1, 'params.temp_class'), undefined), 'required', elecRate(1, 'params.temp_class'));
    expectError(setAt(exampleProducts(), elecRate(1, 'params.temp_class'), 'HP'), 'temp_class_does_not_match_calendar', elecRate(1, 'params.temp_class'));
    expectError(setAt(exampleProducts(), elecRate(3, 'params.temp_class'), 'BASE'), 'temp_class_does_not_match_calendar', elecRate(3, 'params.temp_class'));
    expectError(setAt(exampleProducts(), elecRate(0, 'params.temp_class'), 'BASE'), 'field_not_allowed', elecRate(0, 'params.temp_class'));
    expectError(setAt(exampleProducts(), elecRate(1, 'params.temp_class'), 'HPX'), 'invalid_choice', elecRate(1, 'params.temp_class'));
  });

  it('gas consumption rates need price_level 1-6; standing charges have none', () => {
    expectError(setAt(exampleProducts(), gasRate(1, 'params.price_level'), undefined), 'required', gasRate(1, 'params.price_level'));
    expectError(setAt(exampleProducts(), gasRate(0, 'params.price_level'), 2), 'field_not_allowed', gasRate(0, 'params.price_level'));
    expectError(setAt(exampleProducts(), gasRate(1, 'params.price_level'), 0), 'min_value', gasRate(1, 'params.price_level'));
    expectError(setAt(exampleProducts(), gasRate(1, 'params.price_level'), 7), 'max_value', gasRate(1, 'params.price_level'));
    expectError(setAt(exampleProducts(), gasRate(1, 'params.price_level'), 1.5), 'invalid', gasRate(1, 'params.price_level'));
  });

  it('the params of the other market are refused, not dropped', () => {
    expectError(setAt(exampleProducts(), elecRate(1, 'params.price_level'), 1), 'field_not_allowed', elecRate(1, 'params.price_level'));
    expectError(setAt(exampleProducts(), elecRate(1, 'params.consumption_class_id'), 'B1'), 'field_not_allowed', elecRate(1, 'params.consumption_class_id'));
    expectError(setAt(exampleProducts(), gasRate(1, 'params.provider_calendar'), 'BASE'), 'field_not_allowed', gasRate(1, 'params.provider_calendar'));
    expectError(setAt(exampleProducts(), gasRate(0, 'params.max_subscribed_max_power'), 6), 'field_not_allowed', gasRate(0, 'params.max_subscribed_max_power'));
  });

  it('min <= max for power and annual consumption bounds, both not negative', () => {
    expectError(setAt(exampleProducts(), elecRate(0, 'params.min_subscribed_max_power'), 7), 'min_greater_than_max', elecRate(0, 'params.max_subscribed_max_power'));
    expectError(setAt(exampleProducts(), gasRate(1, 'params.max_annual_consumption'), -1), 'min_value', gasRate(1, 'params.max_annual_consumption'));
    expectError(setAt(exampleProducts(), gasRate(1, 'params.min_annual_consumption'), 6001), 'min_greater_than_max', gasRate(1, 'params.max_annual_consumption'));
    validated(setAt(exampleProducts(), elecRate(0, 'params.min_subscribed_max_power'), 6));
  });

  it('price_per_unit is a finite number >= 0 with at most 10 digits each side of the point', () => {
    expectError(setAt(exampleProducts(), elecRate(0, 'price_per_unit'), -0.01), 'min_value', elecRate(0, 'price_per_unit'));
    expectError(setAt(exampleProducts(), elecRate(0, 'price_per_unit'), '0.41'), 'invalid', elecRate(0, 'price_per_unit'));
    expectError(setAt(exampleProducts(), elecRate(0, 'price_per_unit'), Number.POSITIVE_INFINITY), 'invalid', elecRate(0, 'price_per_unit'));
    expectError(setAt(exampleProducts(), elecRate(0, 'price_per_unit'), 1e-11), 'max_decimal_places', elecRate(0, 'price_per_unit'));
    expectError(setAt(exampleProducts(), elecRate(0, 'price_per_unit'), 12345678901), 'max_whole_digits', elecRate(0, 'price_per_unit'));
    validated(setAt(exampleProducts(), elecRate(0, 'price_per_unit'), 0));
    // JSON.parse turns an out-of-range literal into Infinity: refused too.
    expectError(JSON.parse(JSON.stringify(exampleProducts()).replace('0.4121', '1e400')), 'invalid', elecRate(0, 'price_per_unit'));
  });

  it('valid_from_date is a real date', () => {
    expectError(setAt(exampleProducts(), elecRate(0, 'valid_from_date'), '2025-13-01'), 'invalid', elecRate(0, 'valid_from_date'));
    expectError(setAt(exampleProducts(), elecRate(0, 'valid_from_date'), undefined), 'required', elecRate(0, 'valid_from_date'));
  });

  it('within one product, rates of one band do not share a valid_from_date', () => {
    const input = exampleProducts();
    const rates = input[0]!['rates'] as unknown[];
    rates.push({ ...(rates[1] as object), price_per_unit: 0.3 });
    expectError(input, 'duplicate_rate_valid_from', '0.rates.5.valid_from_date');
    // The same date in another band, or a later date in the same band, is fine.
    const later = exampleProducts();
    (later[0]!['rates'] as unknown[]).push({ ...(rates[1] as object), valid_from_date: '2025-09-01' });
    validated(later);
  });

  it('reports every problem of every product at once, with the product index first', () => {
    const input = exampleProducts();
    setAt(input, elecRate(2, 'unit_type'), 'KWH_CONSUMPION');
    setAt(input, gasRate(0, 'price_per_unit'), -1);
    const result = validateProducts(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.attr)).toEqual([elecRate(2, 'unit_type'), gasRate(0, 'price_per_unit')]);
  });
});

describe('decimalString', () => {
  it('keeps the decimal a number reads as, expanding exponents', () => {
    expect(decimalString(0.2516)).toBe('0.2516');
    expect(decimalString(12)).toBe('12');
    expect(decimalString(1e-7)).toBe('0.0000001');
    expect(decimalString(1.25e-7)).toBe('0.000000125');
    expect(decimalString(1e21)).toBe('1000000000000000000000');
    expect(decimalString(1.5e22)).toBe('15000000000000000000000');
    expect(decimalString(-0)).toBe('0');
  });
});
