import { z } from 'zod';
import { decimalString } from '../product/decimal.js';

/**
 * Money arrives as a JSON number in major units and is kept as integer cents.
 * The number is read through its shortest decimal text (`String(n)`, what the
 * caller wrote for any amount of up to 15 significant digits) and converted
 * digit by digit, never by multiplying a float. At most 2 decimals and at most
 * MAX_WHOLE_DIGITS digits before the point, so every accepted amount is exact
 * (12 significant digits at most) and its cents a safe integer.
 */
export const MAX_WHOLE_DIGITS = 10;

export type CentsParse =
  | { readonly ok: true; readonly cents: number }
  | { readonly ok: false; readonly code: 'invalid' | 'max_decimal_places' | 'max_whole_digits'; readonly detail: string };

/** The decimal text of a finite number, sign included (`-12.5`, `0.0000001`). */
export function signedDecimalString(value: number): string {
  return value < 0 ? `-${decimalString(value)}` : decimalString(value);
}

export function parseCents(value: number): CentsParse {
  if (!Number.isFinite(value)) return { ok: false, code: 'invalid', detail: 'A valid number is required.' };
  const text = decimalString(value);
  const [whole = '', fraction = ''] = text.split('.');
  if (fraction.length > 2) {
    return { ok: false, code: 'max_decimal_places', detail: 'Ensure that there are no more than 2 decimal places.' };
  }
  if (whole.replace(/^0+(?=\d)/, '').length > MAX_WHOLE_DIGITS) {
    return {
      ok: false,
      code: 'max_whole_digits',
      detail: `Ensure that there are no more than ${MAX_WHOLE_DIGITS} digits before the decimal point.`,
    };
  }
  const magnitude = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return { ok: true, cents: value < 0 ? -magnitude : magnitude };
}

/** Cents as the API shows money in responses: a string with two decimals (`-0.05`, `35.20`). */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const magnitude = Math.abs(cents);
  return `${sign}${Math.floor(magnitude / 100)}.${String(magnitude % 100).padStart(2, '0')}`;
}

/** Cents back to the JSON number the caller sent (exact: at most 12 significant digits). */
export function centsToNumber<T extends number | null | undefined>(cents: T): T extends number ? number : T;
export function centsToNumber(cents: number | null | undefined): number | null | undefined {
  return typeof cents === 'number' ? Number(formatCents(cents)) : cents;
}

/** A money field of a request: a JSON number, parsed to integer cents (codes `invalid`, `max_decimal_places`, `max_whole_digits`). */
export function centsAmount() {
  return z.number().transform((value, ctx) => {
    const parsed = parseCents(value);
    if (parsed.ok) return parsed.cents;
    ctx.addIssue({ code: 'custom', message: parsed.detail, params: { code: parsed.code }, input: value });
    return z.NEVER;
  });
}

/**
 * A non-money decimal of a request (units, prices, tax rates): a JSON number
 * kept as its decimal text, bounded like the platform's decimal fields.
 */
export function decimalText(maxWhole: number, maxFraction: number) {
  return z.number().transform((value, ctx) => {
    const text = signedDecimalString(value);
    const [whole = '', fraction = ''] = text.replace(/^-/, '').split('.');
    if (fraction.length > maxFraction) {
      ctx.addIssue({
        code: 'custom',
        message: `Ensure that there are no more than ${maxFraction} decimal places.`,
        params: { code: 'max_decimal_places' },
        input: value,
      });
      return z.NEVER;
    }
    if (whole.replace(/^0+(?=\d)/, '').length > maxWhole) {
      ctx.addIssue({
        code: 'custom',
        message: `Ensure that there are no more than ${maxWhole} digits before the decimal point.`,
        params: { code: 'max_whole_digits' },
        input: value,
      });
      return z.NEVER;
    }
    return text;
  });
}
