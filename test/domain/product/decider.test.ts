import { describe, expect, it } from 'vitest';
import type { ProductEvent, RatesAdded } from '../../../events/product.js';
import { productDecider as decider } from '../../../src/domain/product/decider.js';
import { given } from '../../support/given.js';
import { NOW, exampleProducts, exampleRateUpdate, importCommand, setAt } from './product-fixtures.js';

const LATER = '2026-12-01T09:00:00.000Z';
const ELEC_BASE_CONSUMPTION = {
  bandCategory: 'CONSUMPTION_CHARGE',
  providerCalendar: 'BASE',
  tempClass: 'BASE',
  minSubscribedMaxPower: 3,
  maxSubscribedMaxPower: 6,
} as const;

/** The events products.json's ELEC-FIXE-2025 is created with. */
const created = (): readonly ProductEvent[] => decider.decide(importCommand(exampleProducts(), 0), decider.initialState);

/** product-rate-update.json with its one rate moved to `date` (and optionally a price). */
function update(date: string, price = 0.1952) {
  const input = exampleRateUpdate();
  setAt(input, '0.rates.0.valid_from_date', date);
  setAt(input, '0.rates.0.price_per_unit', price);
  return input;
}

function rateAdded(rateNumber: number, validFrom: string, price: string, closes: { rateNumber: number; validTo: string } | null): RatesAdded['data']['rates'][number] {
  return { rateNumber, band: ELEC_BASE_CONSUMPTION, unitType: 'KWH_CONSUMPION', validFrom, pricePerUnit: price, closes };
}

describe('product decider: create', () => {
  it('a new code: ProductCreated with the attributes, then RatesAdded with every rate open-ended', () => {
    const events = created();
    expect(events.map((e) => e.type)).toEqual(['ProductCreated', 'RatesAdded']);
    expect(events[0]).toEqual({
      type: 'ProductCreated',
      version: 1,
      data: {
        code: 'ELEC-FIXE-2025',
        marketName: 'FRA_ELECTRICITY',
        fullName: 'Electricité Fixe 2025',
        displayName: 'Fixe 2025',
        description: 'Prix du kWh fixe pendant 12 mois',
        notes: 'Fixed-price electricity offer migrated from the legacy catalogue',
        brand: 'LEGACY_ENERGIE',
        availableFromDate: '2025-01-01',
        isHidden: false,
        params: { segments: 'C5', isVariable: false, costStacking: false, nextProductCode: 'ELEC-FIXE-2026', isDefault: false },
        createdAt: NOW,
      },
    });
    const added = events[1] as RatesAdded;
    expect(added.data.rates.map((r) => [r.rateNumber, r.validFrom, r.pricePerUnit, r.closes])).toEqual([
      [1, '2025-01-01T00:00:00Z', '0.4121', null],
      [2, '2025-01-01T00:00:00Z', '0.2016', null],
      [3, '2025-01-01T00:00:00Z', '0.4587', null],
      [4, '2025-01-01T00:00:00Z', '0.2146', null],
      [5, '2025-01-01T00:00:00Z', '0.1696', null],
    ]);
    expect(added.data.rates[1]?.band).toEqual(ELEC_BASE_CONSUMPTION);
  });

  it('several rates of one band in a new product: ordered by valid_from, each closing the one before', () => {
    const input = exampleProducts();
    const rates = input[0]!['rates'] as Record<string, unknown>[];
    input[0]!['rates'] = [{ ...rates[1], valid_from_date: '2025-09-01', price_per_unit: 0.25 }, rates[1]];
    given(decider).when(importCommand(input)).then([
      created()[0]!,
      {
        type: 'RatesAdded',
        version: 1,
        data: {
          code: 'ELEC-FIXE-2025',
          rates: [
            rateAdded(1, '2025-01-01T00:00:00Z', '0.2016', null),
            rateAdded(2, '2025-09-01T00:00:00Z', '0.25', { rateNumber: 1, validTo: '2025-09-01T00:00:00Z' }),
          ],
          addedAt: NOW,
        },
      },
    ]);
  });
});

describe('product decider: append-only rate update (spec 4.3)', () => {
  it('product-rate-update.json: one rate added, closing the latest of its band at midnight of its valid_from', () => {
    given(decider, created()).when(importCommand(exampleRateUpdate(), 0, LATER)).then([
      {
        type: 'RatesAdded',
        version: 1,
        data: {
          code: 'ELEC-FIXE-2025',
          rates: [rateAdded(6, '2025-08-01T00:00:00Z', '0.1952', { rateNumber: 2, validTo: '2025-08-01T00:00:00Z' })],
          addedAt: LATER,
        },
      },
    ]);
  });

  it('rule 1: attribute and param changes of an existing product are ignored', () => {
    const input = exampleRateUpdate();
    setAt(input, '0.full_name', 'Renamed');
    setAt(input, '0.params.segments', 'C4');
    setAt(input, '0.is_hidden', true);
    const events = decider.decide(importCommand(input), fold(created()));
    expect(events.map((e) => e.type)).toEqual(['RatesAdded']);
    const after = fold([...created(), ...events]);
    expect(after.status === 'created' && after.product).toEqual(created()[0]?.data);
  });

  it('rule 2: a rate whose params match no rate of the product is no_matching_rate (attr on its params)', () => {
    const input = setAt(exampleRateUpdate(), '0.rates.0.params.max_subscribed_max_power', 9);
    const error = given(decider, created()).when({ ...importCommand(input), index: 3 }).thenFails('no_matching_rate');
    expect(error.errors).toEqual([{ code: 'no_matching_rate', attr: '3.rates.0.params', detail: expect.any(String) }]);
  });

  it('rule 2: a rate of a known band starting before the band has any rate is no_matching_rate', () => {
    given(decider, created()).when(importCommand(update('2024-12-31'))).thenFails('no_matching_rate');
  });

  it('rule 3: a valid_from on or before the latest rate of the band is rate_not_continuous (attr on valid_from_date)', () => {
    const history = [...created(), ...decider.decide(importCommand(update('2025-08-01')), fold(created()))];
    // 2025-05-01 falls inside the closed first rate, not the latest one.
    const error = given(decider, history).when(importCommand(update('2025-05-01', 0.3))).thenFails('rate_not_continuous');
    expect(error.errors).toEqual([{ code: 'rate_not_continuous', attr: '0.rates.0.valid_from_date', detail: expect.any(String) }]);
    // Same day as the latest rate with another price.
    given(decider, history).when(importCommand(update('2025-08-01', 0.3))).thenFails('rate_not_continuous');
  });

  it('a rate identical to a stored one (band, valid_from, price) is already there: nothing is appended', () => {
    given(decider, created()).when(importCommand(exampleProducts())).then([]);
    const history = [...created(), ...decider.decide(importCommand(exampleRateUpdate()), fold(created()))];
    given(decider, history).when(importCommand(exampleRateUpdate())).then([]);
  });

  it('several new rates of one band in one request extend the timeline in valid_from order', () => {
    const input = update('2025-10-01', 0.18);
    (input[0]!['rates'] as unknown[]).push({ ...(update('2025-08-01').at(0)!['rates'] as unknown[])[0] as object });
    const events = given(decider, created()).when(importCommand(input));
    events.then([
      {
        type: 'RatesAdded',
        version: 1,
        data: {
          code: 'ELEC-FIXE-2025',
          rates: [
            rateAdded(6, '2025-08-01T00:00:00Z', '0.1952', { rateNumber: 2, validTo: '2025-08-01T00:00:00Z' }),
            rateAdded(7, '2025-10-01T00:00:00Z', '0.18', { rateNumber: 6, validTo: '2025-10-01T00:00:00Z' }),
          ],
          addedAt: NOW,
        },
      },
    ]);
  });

  it('every failing rate of the product is reported, top-level code from the first', () => {
    const input = update('2025-08-01');
    const rates = input[0]!['rates'] as Record<string, unknown>[];
    rates.push({ ...rates[0], valid_from_date: '2024-01-01' });
    rates.push({ ...rates[0], params: { provider_calendar: 'BASE', temp_class: 'BASE' } });
    const error = given(decider, created()).when(importCommand(input)).thenFails('no_matching_rate');
    expect(error.errors.map((e) => [e.code, e.attr])).toEqual([
      ['no_matching_rate', '0.rates.1.params'],
      ['no_matching_rate', '0.rates.2.params'],
    ]);
  });
});

function fold(events: readonly ProductEvent[]) {
  return events.reduce(decider.evolve, decider.initialState);
}
