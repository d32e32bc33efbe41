import { z } from 'zod';
import { decimalString } from '../product/decimal.js';

/**
 * Money arrives in major units, a JSON number or a decimal string ("53.24"), and is kept as integer cents,
 * converted digit by digit, never by multiplying a float. At most 2 decimals and MAX_WHOLE_DIGITS whole
 * digits, so every accepted amount is exact and its cents a safe integer.
 */
export const MAX_WHOLE_DIGITS = 10;

/**
 * A decimal string as the platform's `format: decimal` fields write it, less the digit bounds (they answer
 * their own codes): an optional minus, at least one digit, an optional point. No exponent, plus sign or space.
 */
export const DECIMAL_STRING_PATTERN = '^-?(?:\\d+(?:\\.\\d*)?|\\.\\d+)$';
const DECIMAL_STRING = new RegExp(DECIMAL_STRING_PATTERN);

/** A decimal's digits, normalised so that a number and its string forms read the same ("-0.00" is 0, "1.500" is 1.5). */
interface DecimalDigits {
  readonly negative: boolean;
  readonly whole: string;
  readonly fraction: string;
}

function decimalDigitsOf(value: number | string): DecimalDigits | null {
  let negative: boolean;
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    negative = value < 0;
    text = decimalString(value);
  } else {
    if (!DECIMAL_STRING.test(value)) return null;
    negative = value.startsWith('-');
    text = negative ? value.slice(1) : value;
  }
  const [rawWhole = '', rawFraction = ''] = text.split('.');
  const whole = rawWhole.replace(/^0+/, '') || '0';
  const fraction = rawFraction.replace(/0+$/, '');
  return { negative: negative && (whole !== '0' || fraction !== ''), whole, fraction };
}

type DecimalFailure = { readonly ok: false; readonly code: 'invalid' | 'max_decimal_places' | 'max_whole_digits'; readonly detail: string };
export type CentsParse = { readonly ok: true; readonly cents: number } | DecimalFailure;

/** The decimal text of a finite number, sign included (`-12.5`, `0.0000001`). */
export function signedDecimalString(value: number): string {
  return value < 0 ? `-${decimalString(value)}` : decimalString(value);
}

type DecimalRead = { readonly ok: true; readonly digits: DecimalDigits } | DecimalFailure;

/** Reads a number or a decimal string, bounded to `maxWhole` digits before the point and `maxFraction` after it (codes as DRF's DecimalField). */
function readDecimal(value: number | string, maxWhole: number, maxFraction: number): DecimalRead {
  const digits = decimalDigitsOf(value);
  if (!digits) return { ok: false, code: 'invalid', detail: 'A valid number is required.' };
  if (digits.fraction.length > maxFraction) {
    return { ok: false, code: 'max_decimal_places', detail: `Ensure that there are no more than ${maxFraction} decimal places.` };
  }
  if (digits.whole.length > maxWhole) {
    return { ok: false, code: 'max_whole_digits', detail: `Ensure that there are no more than ${maxWhole} digits before the decimal point.` };
  }
  return { ok: true, digits };
}

export function parseCents(value: number | string): CentsParse {
  const read = readDecimal(value, MAX_WHOLE_DIGITS, 2);
  if (!read.ok) return read;
  const { negative, whole, fraction } = read.digits;
  const magnitude = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return { ok: true, cents: negative ? -magnitude : magnitude };
}

/**
 * A number or a decimal string, its form and digits checked when read (readDecimal) so that a bad one
 * answers its own code and detail. The document states the same bounds: a number is a multiple of
 * 10^-maxFraction below 10^maxWhole in size, a string has at most `maxWhole` digits before the point
 * and `maxFraction` after it (leading and trailing zeros aside).
 */
function decimalInput(maxWhole: number, maxFraction: number) {
  const number = z.number().meta(numberBounds(maxWhole, maxFraction));
  const pattern = `^-?(?:0*\\d{1,${maxWhole}}(?:\\.\\d{0,${maxFraction}}0*)?|\\.(?:\\d{1,${maxFraction}}0*|0+))$`;
  return z.union([number, z.string().meta({ format: 'decimal', pattern })], { error: 'A valid number is required.' });
}

/** What the document states of a JSON number readDecimal bounds: a multiple of 10^-maxFraction, less than 10^maxWhole in size. */
function numberBounds(maxWhole: number, maxFraction: number, minimum: number | null = null) {
  const bound = 10 ** maxWhole;
  const multipleOf = Number(`1e-${maxFraction}`);
  // A number with a minimum of its own (money is not negative) states that bound instead.
  return minimum === null ? { multipleOf, exclusiveMinimum: -bound, exclusiveMaximum: bound } : { multipleOf, exclusiveMaximum: bound };
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

/** A money field: a JSON number or a decimal string in major units, parsed exactly to integer cents. */
export function centsAmount() {
  return decimalInput(MAX_WHOLE_DIGITS, 2).transform((value, ctx) => {
    const parsed = parseCents(value);
    if (parsed.ok) return parsed.cents;
    ctx.addIssue({ code: 'custom', message: parsed.detail, params: { code: parsed.code }, input: value });
    return z.NEVER;
  });
}

/** A non-money decimal (units, prices, tax rates) kept as its normalised text (4.0, "4.0" and "4" are "4"), bounded. */
export function decimalText(maxWhole: number, maxFraction: number) {
  return decimalInput(maxWhole, maxFraction).transform((value, ctx) => {
    const read = readDecimal(value, maxWhole, maxFraction);
    if (read.ok) {
      const { negative, whole, fraction } = read.digits;
      return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
    }
    ctx.addIssue({ code: 'custom', message: read.detail, params: { code: read.code }, input: value });
    return z.NEVER;
  });
}

/** A decimal kept as the JSON number it is (`number`), its digits bounded as `decimalText` bounds them. */
export function decimalNumber(number: z.ZodNumber, maxWhole: number, maxFraction: number) {
  return number
    .superRefine((value, ctx) => {
      const read = readDecimal(value, maxWhole, maxFraction);
      if (!read.ok) ctx.addIssue({ code: 'custom', message: read.detail, params: { code: read.code }, input: value });
    })
    .meta(numberBounds(maxWhole, maxFraction, number.minValue));
}
