import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { centsToNumber, formatCents, parseCents } from '../../../src/domain/account-records/money.js';

describe('money: JSON numbers in major units <-> integer cents', () => {
  it.each([
    [35.2, 3520],
    [0.01, 1],
    [-0.05, -5],
    [10, 1000],
    [1e2, 10000],
    [9999999999.99, 999999999999],
    [-0, 0],
  ])('%s reads as %s cents', (value, cents) => {
    expect(parseCents(value)).toEqual({ ok: true, cents });
  });

  it.each([
    [35.201, 'max_decimal_places'],
    [0.1 + 0.2, 'max_decimal_places'],
    [1e-7, 'max_decimal_places'],
    [12345678901, 'max_whole_digits'],
    [1e21, 'max_whole_digits'],
    [Number.NaN, 'invalid'],
    [Number.POSITIVE_INFINITY, 'invalid'],
  ])('%s is refused (%s)', (value, code) => {
    expect(parseCents(value)).toMatchObject({ ok: false, code });
  });

  it('formats cents with two decimals', () => {
    expect([3520, 1, -5, 0, -100, 999999999999].map(formatCents)).toEqual(['35.20', '0.01', '-0.05', '0.00', '-1.00', '9999999999.99']);
  });

  it('property: every amount of at most 10 whole digits and 2 decimals round-trips exactly through its JSON number', () => {
    fc.assert(
      fc.property(fc.integer({ min: -999_999_999_999, max: 999_999_999_999 }), (cents) => {
        const sent = JSON.parse(formatCents(cents)) as number;
        expect(parseCents(sent)).toEqual({ ok: true, cents: cents === 0 ? 0 : cents });
        expect(centsToNumber(cents)).toBe(sent);
      }),
      { numRuns: 2000 },
    );
  });
});
