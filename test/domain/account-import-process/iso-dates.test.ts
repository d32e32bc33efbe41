import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCalendarDate, isIsoDateTime, nextDay } from '../../../src/domain/account-import-process/iso-dates.js';

describe('isCalendarDate', () => {
  it.each(['2024-02-29', '2000-02-29', '2025-12-31', '0001-01-01'])('accepts %s', (date) => {
    expect(isCalendarDate(date)).toBe(true);
  });

  it.each(['2025-02-29', '1900-02-29', '2025-02-30', '2025-04-31', '2025-13-01', '2025-00-10', '2025-1-01', '20250101', '2025-01-01T00:00:00Z', ' 2025-01-01'])(
    'rejects %s',
    (date) => {
      expect(isCalendarDate(date)).toBe(false);
    },
  );
});

describe('isIsoDateTime', () => {
  it.each(['2025-03-02T09:30:00Z', '2024-12-20T10:15:00+01:00', '2024-12-20T10:15:00.123456-05:30', '2024-02-29T23:59:59Z'])('accepts %s', (value) => {
    expect(isIsoDateTime(value)).toBe(true);
  });

  it.each([
    '2025-03-02T09:30:00',
    '2025-03-02T09:30Z',
    '2025-03-02 09:30:00Z',
    '2025-03-02t09:30:00z',
    '2025-02-30T09:30:00Z',
    '2025-03-02T24:00:00Z',
    '2025-03-02T09:60:00Z',
    '2025-03-02T09:30:60Z',
    '2025-03-02T09:30:00+0100',
    '2025-03-02T09:30:00+24:00',
  ])('rejects %s', (value) => {
    expect(isIsoDateTime(value)).toBe(false);
  });
});

describe('nextDay', () => {
  it.each([
    ['2025-06-30', '2025-07-01'],
    ['2024-02-28', '2024-02-29'],
    ['2025-02-28', '2025-03-01'],
    ['2025-12-31', '2026-01-01'],
  ])('%s -> %s', (date, expected) => {
    expect(nextDay(date)).toBe(expected);
  });

  it('agrees with the UTC calendar', () => {
    const day = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-12-31T00:00:00Z'), noInvalidDate: true });
    fc.assert(
      fc.property(day, (d) => {
        const date = d.toISOString().slice(0, 10);
        const expected = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
        expect(isCalendarDate(date)).toBe(true);
        expect(nextDay(date)).toBe(expected);
      }),
    );
  });
});

describe('isCalendarDate against the calendar', () => {
  it('reads calendar dates as the pattern /^(\\d{4})-(\\d{2})-(\\d{2})$/ and the calendar do', () => {
    const byPattern = (value: string) => {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
      if (!match) return false;
      const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
      return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 1 : 0);
    };
    const dateLike = fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(
        ([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
      ),
      fc.string({ minLength: 10, maxLength: 10 }),
      fc.stringMatching(/^[\d-]{8,11}$/),
    );
    fc.assert(
      fc.property(dateLike, (value) => {
        expect(isCalendarDate(value)).toBe(byPattern(value));
      }),
    );
  });
});
