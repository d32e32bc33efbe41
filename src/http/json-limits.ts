import type { ErrorCode } from '../domain/error-codes.js';
import { DomainError, NON_FIELD_ERRORS } from '../domain/errors.js';

/**
 * Structural limits on every JSON request body, checked on its text once it parsed, before any schema
 * sees it (docs/reliability.md). Each is a 400:
 * - `nesting_too_deep` past MAX_JSON_DEPTH: validation and error reporting recurse;
 * - `array_too_long` past MAX_JSON_ARRAY_ITEMS: it bounds the work of reporting errors;
 * - `number_out_of_range` for a number that is not finite (`1e400`), `number_precision_lost` for one that
 *   would read as another value (`9007199254740993`, `0.1000000000000000001`, `1e-400`): the service
 *   never stores a value other than the one sent;
 * - `string_too_long` for a string or key past MAX_JSON_STRING_LENGTH (free text has no lower bound);
 * - `invalid_unicode` for a lone UTF-16 surrogate (SQLite would store U+FFFD: two identifiers could
 *   become one) or U+0000 (PostgreSQL's text refuses it, and every store answers the same).
 *
 * Duplicate keys are allowed: the last one wins (JSON.parse), and every later step reads that value.
 */
export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_ARRAY_ITEMS = 10_000;
export const MAX_JSON_STRING_LENGTH = 65_536;

type Frame = { kind: 'object'; key: string | null } | { kind: 'array'; index: number };

const pathOf = (stack: readonly Frame[]): string => {
  const parts: string[] = [];
  for (const frame of stack) {
    if (frame.kind === 'array') parts.push(String(Math.max(frame.index, 0)));
    else if (frame.key !== null) parts.push(frame.key);
  }
  return parts.length > 0 ? parts.join('.') : NON_FIELD_ERRORS;
};

const problem = (code: ErrorCode, detail: string, attr: string) =>
  new DomainError(code, detail, { errors: [{ detail, code, attr }] });

/** Significant digits and decimal point position of a number's text; null for zero. */
function decimalForm(text: string): { digits: string; point: number } | null {
  const match = /^-?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return null;
  const whole = match[1] ?? '';
  let digits = whole + (match[2] ?? '');
  let point = whole.length + Number(match[3] ?? '0');
  const leading = /^0*/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(leading).replace(/0+$/, '');
  point -= leading;
  return digits.length === 0 ? null : { digits, point };
}

/** The first problem with one number literal, or null; `attr` is asked only for a problem. */
function numberProblem(literal: string, attr: () => string): DomainError | null {
  const value = Number(literal);
  if (!Number.isFinite(value)) {
    return problem('number_out_of_range', `The number ${literal.slice(0, 40)} is out of range.`, attr());
  }
  // Most numbers are sent as JavaScript writes them back: the same text is the same value.
  if (String(value) === literal) return null;
  const sent = decimalForm(literal);
  const read = decimalForm(String(value));
  const same = sent === null || read === null ? sent === read : sent.digits === read.digits && sent.point === read.point;
  if (!same) {
    return problem(
      'number_precision_lost',
      `The number ${literal.slice(0, 40)} cannot be represented exactly; send at most 15 significant digits.`,
      attr(),
    );
  }
  return null;
}

/** 0-9 e E + - . */
const isNumberChar = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d || c === 0x2e;

const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What is wrong with a decoded string's characters, if anything. U+0000 and a surrogate the text
 * does not hold can only come from an escape.
 */
function unicodeProblem(decoded: string, escaped: boolean, textHasSurrogates: boolean): string | null {
  if ((escaped || textHasSurrogates) && LONE_SURROGATE.test(decoded)) return 'an unpaired UTF-16 surrogate';
  if (escaped && decoded.includes('\u0000')) return 'the character U+0000, which cannot be stored';
  return null;
}

/**
 * Checks the text of a body that JSON.parse accepted. One pass, no recursion:
 * the depth of the input never reaches the call stack.
 */
export function jsonLimitProblem(text: string): DomainError | null {
  const stack: Frame[] = [];
  let expectKey = false;
  // Most bodies hold neither an escape nor a surrogate: their strings need no decoding and no surrogate check.
  const textHasEscapes = text.includes('\\');
  const textHasSurrogates = SURROGATE.test(text);
  const beginValue = (): DomainError | null => {
    const top = stack[stack.length - 1];
    if (top?.kind === 'array') {
      top.index++;
      if (top.index >= MAX_JSON_ARRAY_ITEMS) {
        return problem('array_too_long', `Arrays may hold at most ${MAX_JSON_ARRAY_ITEMS} items.`, pathOf(stack.slice(0, -1)));
      }
    }
    return null;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      const start = i;
      // The text parsed, so every string is closed: jump from quote to quote (natively), stepping over escaped ones.
      for (;;) {
        i = text.indexOf('"', i + 1);
        let backslashes = 0;
        while (text.charCodeAt(i - 1 - backslashes) === 0x5c /* \ */) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      const raw = textHasEscapes ? text.slice(start, i + 1) : '';
      const escaped = textHasEscapes && raw.includes('\\');
      const decoded = escaped ? (JSON.parse(raw) as string) : text.slice(start + 1, i);
      if (decoded.length > MAX_JSON_STRING_LENGTH) {
        if (!expectKey) beginValue();
        const what = expectKey ? 'Keys' : 'Strings';
        return problem('string_too_long', `${what} may be at most ${MAX_JSON_STRING_LENGTH} characters long.`, pathOf(stack));
      }
      if (expectKey) {
        const top = stack[stack.length - 1];
        if (top?.kind === 'object') top.key = decoded;
        expectKey = false;
        const unicode = unicodeProblem(decoded, escaped, textHasSurrogates);
        if (unicode) return problem('invalid_unicode', `A key holds ${unicode}.`, pathOf(stack));
      } else {
        const failure = beginValue();
        if (failure) return failure;
        const unicode = unicodeProblem(decoded, escaped, textHasSurrogates);
        if (unicode) return problem('invalid_unicode', `A string holds ${unicode}.`, pathOf(stack));
      }
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      const failure = beginValue();
      if (failure) return failure;
      if (stack.length >= MAX_JSON_DEPTH) {
        return problem('nesting_too_deep', `JSON nesting may be at most ${MAX_JSON_DEPTH} levels deep.`, pathOf(stack));
      }
      stack.push(ch === 0x7b ? { kind: 'object', key: null } : { kind: 'array', index: -1 });
      expectKey = ch === 0x7b;
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (ch === 0x2c /* , */) {
      expectKey = stack[stack.length - 1]?.kind === 'object';
    } else if (ch === 0x2d /* - */ || (ch >= 0x30 && ch <= 0x39)) {
      const start = i;
      while (i + 1 < text.length && isNumberChar(text.charCodeAt(i + 1))) i++;
      const failure = beginValue() ?? numberProblem(text.slice(start, i + 1), () => pathOf(stack));
      if (failure) return failure;
    } else if (ch === 0x74 /* t */ || ch === 0x66 /* f */ || ch === 0x6e /* n */) {
      const failure = beginValue();
      if (failure) return failure;
      i += ch === 0x66 ? 4 : 3;
    }
  }
  return null;
}
