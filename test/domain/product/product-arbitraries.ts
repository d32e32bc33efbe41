import fc from 'fast-check';
import { expect } from 'vitest';
import type { Band, ProductRate } from '../../../events/product.js';
import type { ImportProduct, ProductDraft, RateDraft } from '../../../src/domain/product/commands.js';
import { UNIT_TYPE_OF } from '../../../src/domain/product/product-payload-rules.js';

/** Few bands, dates and prices, so commands collide with what is stored as often as they extend it. */
export const BANDS: readonly Band[] = [
  { bandCategory: 'STANDING_CHARGE', providerCalendar: 'BASE', minSubscribedMaxPower: 3, maxSubscribedMaxPower: 6 },
  { bandCategory: 'CONSUMPTION_CHARGE', providerCalendar: 'BASE', tempClass: 'BASE', minSubscribedMaxPower: 3, maxSubscribedMaxPower: 6 },
  { bandCategory: 'CONSUMPTION_CHARGE', providerCalendar: 'HPHC', tempClass: 'HP' },
];
const DATES = ['2025-01-01', '2025-02-01', '2025-03-15', '2025-06-01', '2025-08-01', '2026-01-01'];
const PRICES = ['0.1', '0.2016', '0.25', '1'];

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const anyDate = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...DATES) },
  { weight: 1, arbitrary: fc.date({ min: new Date('2024-01-01'), max: new Date('2027-12-31'), noInvalidDate: true }).map(isoDay) },
);

const rate = fc.record({ band: fc.constantFrom(...BANDS), validFromDate: anyDate, pricePerUnit: fc.constantFrom(...PRICES) });

/** A product draft of `code` with arbitrary (not payload-validated) rates and one of two attribute variants. */
export const productDraft = (code: string): fc.Arbitrary<ProductDraft> =>
  fc.record({ variant: fc.nat(1), rates: fc.array(rate, { maxLength: 4 }) }).map(({ variant, rates }) => ({
    code,
    marketName: 'FRA_ELECTRICITY' as const,
    fullName: `Product ${code} v${variant}`,
    displayName: `P${variant}`,
    description: variant === 0 ? null : 'described',
    notes: null,
    brand: 'BRAND',
    availableFromDate: variant === 0 ? '2025-01-01' : '2025-02-01',
    isHidden: variant === 0 ? null : true,
    params: { segments: 'C5', isVariable: variant === 0, costStacking: false, nextProductCode: null, isDefault: null },
    rates: rates.map(
      (r, index): RateDraft => ({ index, band: r.band, unitType: UNIT_TYPE_OF[r.band.bandCategory], validFromDate: r.validFromDate, pricePerUnit: r.pricePerUnit }),
    ),
  }));

export const command = (draft: ProductDraft, i: number): ImportProduct => ({
  type: 'ImportProduct',
  index: 0,
  product: draft,
  now: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
});

/** Invariant (1): per band, sorted by valid_from, each rate ends exactly where the next starts; only the latest is open. */
export function expectContinuousBands(rates: readonly ProductRate[]): void {
  expect(rates.map((r) => r.rateNumber)).toEqual(rates.map((_, i) => i + 1));
  const byBand = new Map<string, ProductRate[]>();
  for (const r of rates) byBand.set(r.bandKey, [...(byBand.get(r.bandKey) ?? []), r]);
  for (const band of byBand.values()) {
    const sorted = [...band].sort((a, b) => (a.validFrom < b.validFrom ? -1 : 1));
    sorted.forEach((r, i) => {
      const next = sorted[i + 1];
      if (next) {
        expect(next.validFrom > r.validFrom).toBe(true);
        expect(r.validTo).toBe(next.validFrom);
      } else {
        expect(r.validTo).toBeNull();
      }
    });
  }
}
