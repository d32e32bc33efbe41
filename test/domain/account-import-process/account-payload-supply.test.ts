import { describe, it } from 'vitest';
import { domestic, expectError, expectValid, setAt, supplyPoint } from './account-payload-fixtures.js';

const ELEC = 'supply_addresses.0.supply_points.0';
const GAS = 'supply_addresses.0.supply_points.1';

describe('supply addresses', () => {
  it('supply_postcode is required, five digits, else invalid_postcode', () => {
    expectError(setAt(domestic(), 'supply_addresses.0.supply_postcode', undefined), 'required', 'supply_addresses.0.supply_postcode');
    expectError(setAt(domestic(), 'supply_addresses.0.supply_postcode', ''), 'invalid_postcode', 'supply_addresses.0.supply_postcode');
    expectError(setAt(domestic(), 'supply_addresses.0.supply_postcode', '750111'), 'invalid_postcode', 'supply_addresses.0.supply_postcode');
  });

  it('supply_address1 and customer_at_supply_address_from_date are required', () => {
    expectError(setAt(domestic(), 'supply_addresses.0.supply_address1', ''), 'blank', 'supply_addresses.0.supply_address1');
    expectError(
      setAt(domestic(), 'supply_addresses.0.customer_at_supply_address_from_date', undefined),
      'required',
      'supply_addresses.0.customer_at_supply_address_from_date',
    );
  });
});

describe('supply point identifiers', () => {
  it('ELECTRICITY (PRM) needs exactly 14 digits', () => {
    expectError(setAt(domestic(), `${ELEC}.identifier`, '0911164261734'), 'invalid_supply_point_identifier', `${ELEC}.identifier`);
    expectError(setAt(domestic(), `${ELEC}.identifier`, 'GI123456'), 'invalid_supply_point_identifier', `${ELEC}.identifier`);
  });

  it('GAS (PCE) takes 14 digits or GI + 6 digits', () => {
    expectValid(setAt(setAt(domestic(), `${GAS}.identifier`, 'GI123456'), 'payment_preferences.1.supply_point_identifier', 'GI123456'));
    expectError(setAt(domestic(), `${GAS}.identifier`, 'GI12345'), 'invalid_supply_point_identifier', `${GAS}.identifier`);
    expectError(setAt(domestic(), `${GAS}.identifier`, 'gi123456'), 'invalid_supply_point_identifier', `${GAS}.identifier`);
  });

  it('supply_type is ELECTRICITY or GAS', () => {
    expectError(setAt(domestic(), `${GAS}.supply_type`, 'HEAT'), 'invalid_choice', `${GAS}.supply_type`);
  });

  it('a repeat within one address -> duplicate_meter_points_provided on the later one', () => {
    const input = domestic();
    supplyPoint(input, 0, 1).identifier = supplyPoint(input, 0, 0).identifier;
    expectError(input, 'duplicate_meter_points_provided', `${GAS}.identifier`);
  });

  it('a repeat across addresses -> duplicate_meter_points_on_different_supply_addresses_provided', () => {
    const input = domestic();
    const second = structuredClone(input.supply_addresses[0]!);
    second.supply_address1 = '1 rue Oberkampf';
    second.supply_points = [structuredClone(supplyPoint(input, 0, 1))];
    input.supply_addresses.push(second);
    expectError(
      input,
      'duplicate_meter_points_on_different_supply_addresses_provided',
      'supply_addresses.1.supply_points.0.identifier',
    );
  });
});

describe('agreements', () => {
  const agreements = `${ELEC}.agreements`;
  const agreement = (from: string, to?: string) => ({
    tariff_code: 'ELEC-FIXE',
    agreed_at: '2024-12-20T10:15:00Z',
    effective_from: from,
    ...(to === undefined ? {} : { effective_to: to }),
  });

  it('tariff_code and effective_from are required', () => {
    expectError(setAt(domestic(), `${agreements}.0.tariff_code`, undefined), 'required', `${agreements}.0.tariff_code`);
    expectError(setAt(domestic(), `${agreements}.0.effective_from`, undefined), 'required', `${agreements}.0.effective_from`);
  });

  it('agreed_at is an ISO 8601 datetime with Z or a numeric offset', () => {
    expectValid(setAt(domestic(), `${agreements}.0.agreed_at`, '2024-12-20T09:15:00Z'));
    expectValid(setAt(domestic(), `${agreements}.0.agreed_at`, '2024-12-20T09:15:00.250-05:00'));
    for (const bad of ['2024-12-20T10:15:00', '2024-12-20 10:15:00Z', '2024-12-20T24:00:00Z', '2024-02-30T10:15:00Z', '2024-12-20']) {
      expectError(setAt(domestic(), `${agreements}.0.agreed_at`, bad), 'invalid', `${agreements}.0.agreed_at`);
    }
  });

  it('effective dates must be real dates', () => {
    expectError(setAt(domestic(), `${agreements}.0.effective_to`, '2025-02-30'), 'invalid', `${agreements}.0.effective_to`);
  });

  it('addons are objects with a band', () => {
    expectValid(setAt(domestic(), `${agreements}.0.addons`, [{ band: 'HC' }]));
    expectError(setAt(domestic(), `${agreements}.0.addons`, [{}]), 'required', `${agreements}.0.addons.0.band`);
  });

  it('consecutive agreements, the last one open-ended, are accepted in any order', () => {
    expectValid(setAt(domestic(), agreements, [agreement('2026-07-01'), agreement('2025-07-01', '2026-06-30')]));
  });

  it('effective_to before effective_from -> gaps_or_overlaps_in_agreement_dates', () => {
    expectError(setAt(domestic(), agreements, [agreement('2025-07-01', '2025-06-30')]), 'gaps_or_overlaps_in_agreement_dates', `${agreements}.0`);
  });

  it('overlapping agreements (effective_to is inclusive) -> gaps_or_overlaps_in_agreement_dates', () => {
    const input = setAt(domestic(), agreements, [agreement('2025-07-01', '2026-06-30'), agreement('2026-06-30')]);
    expectError(input, 'gaps_or_overlaps_in_agreement_dates', `${agreements}.1`);
  });

  it('an open-ended agreement followed by another -> gaps_or_overlaps_in_agreement_dates', () => {
    const input = setAt(domestic(), agreements, [agreement('2025-07-01'), agreement('2026-07-01')]);
    expectError(input, 'gaps_or_overlaps_in_agreement_dates', `${agreements}.1`);
  });

  it('a gap between agreements -> gaps_or_overlaps_in_agreement_dates', () => {
    const input = setAt(domestic(), agreements, [agreement('2025-07-01', '2026-06-29'), agreement('2026-07-01')]);
    expectError(input, 'gaps_or_overlaps_in_agreement_dates', `${agreements}.1`);
  });
});

describe('consent_data', () => {
  it('names must belong to the supply type -> invalid_consent_name', () => {
    expectError(setAt(domestic(), `${ELEC}.consent_data.GAS_INDEXES`, true), 'invalid_consent_name', `${ELEC}.consent_data.GAS_INDEXES`);
    expectError(setAt(domestic(), `${GAS}.consent_data.ELEC_CURVES`, false), 'invalid_consent_name', `${GAS}.consent_data.ELEC_CURVES`);
  });

  it('values are booleans', () => {
    expectError(setAt(domestic(), `${ELEC}.consent_data.ELEC_CURVES`, 'yes'), 'invalid', `${ELEC}.consent_data.ELEC_CURVES`);
  });
});

describe('payment schedules', () => {
  const schedule = `${ELEC}.payment_schedules.0`;

  it('amount is >= 0 with at most two decimals and ten whole digits, as money everywhere', () => {
    expectValid(setAt(domestic(), `${schedule}.amount`, 0));
    expectValid(setAt(domestic(), `${schedule}.amount`, 64.29));
    expectValid(setAt(domestic(), `${schedule}.amount`, 9999999999.99));
    expectError(setAt(domestic(), `${schedule}.amount`, 1e10), 'max_whole_digits', `${schedule}.amount`);
    // Written with an exponent by String(): once refused as `max_decimal_places`, though it has no decimals.
    expectError(setAt(domestic(), `${schedule}.amount`, 1e21), 'max_whole_digits', `${schedule}.amount`);
    expectError(setAt(domestic(), `${schedule}.amount`, -1), 'min_value', `${schedule}.amount`);
    expectError(setAt(domestic(), `${schedule}.amount`, 64.555), 'max_decimal_places', `${schedule}.amount`);
    expectError(setAt(domestic(), `${schedule}.amount`, '64.50'), 'invalid', `${schedule}.amount`);
  });

  it('day_of_month is an integer from 1 to 28', () => {
    expectError(setAt(domestic(), `${schedule}.day_of_month`, 29), 'invalid_payment_day_for_payment_schedule', `${schedule}.day_of_month`);
    expectError(setAt(domestic(), `${schedule}.day_of_month`, 0), 'invalid_payment_day_for_payment_schedule', `${schedule}.day_of_month`);
    expectError(setAt(domestic(), `${schedule}.day_of_month`, 5.5), 'invalid', `${schedule}.day_of_month`);
  });

  it('frequency, means and start_date are checked', () => {
    expectError(setAt(domestic(), `${schedule}.frequency`, 'WEEKLY'), 'invalid_choice', `${schedule}.frequency`);
    expectError(setAt(domestic(), `${schedule}.means`, 'CASH'), 'invalid_choice', `${schedule}.means`);
    expectError(setAt(domestic(), `${schedule}.start_date`, undefined), 'required', `${schedule}.start_date`);
  });
});

describe('payment instructions', () => {
  const instruction = `${ELEC}.payment_instructions.0`;

  it('reference is required, not blank, at most 512 characters', () => {
    expectError(setAt(domestic(), `${instruction}.reference`, ''), 'blank', `${instruction}.reference`);
    expectError(setAt(domestic(), `${instruction}.reference`, 'R'.repeat(513)), 'max_length', `${instruction}.reference`);
  });

  it('vendor is required, type one of the platform instruction types, valid_from a date', () => {
    expectError(setAt(domestic(), `${instruction}.vendor`, undefined), 'required', `${instruction}.vendor`);
    expectError(setAt(domestic(), `${instruction}.type`, 'SEPA'), 'invalid_choice', `${instruction}.type`);
    expectError(setAt(domestic(), `${instruction}.valid_from`, '2025-13-01'), 'invalid', `${instruction}.valid_from`);
  });
});
