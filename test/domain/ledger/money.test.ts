import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { centsAmount, centsToNumber, decimalText, formatCents, parseCents, signedDecimalString } from '../../../src/domain/account-records/money.js';

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

  it.each([
    ['53.24', 5324],
    ['-0.05', -5],
    ['10', 1000],
    ['10.0', 1000],
    ['1.500', 150],
    ['.5', 50],
    ['5.', 500],
    ['-0.00', 0],
    ['0009999999999.99', 999999999999],
  ])('the decimal string %s reads as %s cents', (text, cents) => {
    expect(parseCents(text)).toEqual({ ok: true, cents });
  });

  it.each([
    ['35.201', 'max_decimal_places'],
    ['12345678901', 'max_whole_digits'],
    ['', 'invalid'],
    ['-', 'invalid'],
    ['.', 'invalid'],
    ['1e3', 'invalid'],
    ['+5', 'invalid'],
    [' 5', 'invalid'],
    ['35,20', 'invalid'],
    ['NaN', 'invalid'],
    ['0x10', 'invalid'],
  ])('the string %j is refused (%s)', (text, code) => {
    expect(parseCents(text)).toMatchObject({ ok: false, code });
  });

  /** A decimal string of at most 10 whole digits and `places` decimals (leading and trailing zeros included), with its exact value in units of 10^-places. */
  const decimalStrings = (places: number) =>
    fc
      .record({
        negative: fc.boolean(),
        whole: fc.stringMatching(/^\d{0,10}$/),
        fraction: fc.stringMatching(new RegExp(`^\\d{0,${places}}$`)),
        point: fc.boolean(),
      })
      .filter(({ whole, fraction }) => whole.length + fraction.length > 0)
      .map(({ negative, whole, fraction, point }) => {
        const text = `${negative ? '-' : ''}${whole}${point || fraction ? `.${fraction}` : ''}`;
        const units = BigInt(`${whole || '0'}${fraction.padEnd(places, '0')}`);
        return { text, units: negative ? -units : units };
      });

  it('property: a decimal string of at most 2 places and 10 whole digits reads as its exact value in cents', () => {
    fc.assert(
      fc.property(decimalStrings(2), ({ text, units }) => {
        const parsed = parseCents(text);
        expect(parsed.ok).toBe(true);
        if (parsed.ok) expect(BigInt(parsed.cents)).toBe(units);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: a number and its string forms give the same cents (or the same refusal), and the same decimal text', () => {
    const amount = centsAmount();
    const units = decimalText(12, 4);
    const samples = fc.oneof(
      fc.integer({ min: -999_999_999_999, max: 999_999_999_999 }).map((cents) => cents / 100),
      fc.double({ min: -1e12, max: 1e12, noNaN: true }),
    );
    fc.assert(
      fc.property(samples, fc.nat({ max: 3 }), (value, zeros) => {
        const text = signedDecimalString(value);
        const padded = text.includes('.') ? `${text}${'0'.repeat(zeros)}` : text;
        for (const form of [text, padded]) {
          expect(parseCents(form)).toEqual(parseCents(value));
          expect(amount.safeParse(form).data).toEqual(amount.safeParse(value).data);
          expect(units.safeParse(form).data).toEqual(units.safeParse(value).data);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

