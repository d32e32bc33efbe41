import { Metadata, isValidPhoneNumber } from 'libphonenumber-js/max';

/**
 * The phone number check of the account payload: a French number (national or +33 form) or any
 * valid international number, `isValidPhoneNumber(value, 'FR')` against libphonenumber's full
 * ("max") metadata (the default "min" metadata checks only lengths), the one definition of a valid
 * number. It was about half
 * of what validating a stage-account payload still cost: each call re-creates its metadata views
 * and builds a RegExp per pattern it tries. Two cheaper routes give the same answer:
 *
 * - the common well-formed French shapes, `+33` or `0` then nine digits not starting with 0, are
 *   decided here with the same metadata's patterns compiled once (`frenchNationalNumber`), which is
 *   what libphonenumber does for them (see the steps below);
 * - any other string asks libphonenumber, through a small memo: the same payload is checked by
 *   validate, stage and process in turn.
 *
 * A property test (phone-numbers.property.test.ts) compares `isValidPhone` with the library's
 * check on generated numbers of every shape and on arbitrary strings.
 */
export function isValidPhone(value: string): boolean {
  const national = frenchNationalNumber(value);
  if (national !== null) {
    const valid = french?.isValid(national);
    if (valid !== undefined) return valid;
  }
  return memoised(value);
}

/** Whether the nine digits (a French national number) are valid, or undefined to ask libphonenumber. */
type FrenchCheck = { isValid(national: string): boolean | undefined };

const CANONICAL = /^(?:\+33|0)[1-9]\d{8}$/;

/** The national number of `+33NNNNNNNNN` or `0NNNNNNNNN` (N... not starting with 0), else null. */
function frenchNationalNumber(value: string): string | null {
  return value.length <= 12 && CANONICAL.test(value) ? value.slice(value.length - 9) : null;
}

// libphonenumber-js 1.x, parse.js + isValid.js, for these two shapes with default country FR:
// - `+33N`: the calling code is the shortest prefix of the digits after `+` that is a calling code
//   (`3` is none, `33` is FR's alone), so the country is FR and N the national number (a national
//   prefix is stripped only when N starts with it, `0`, which N does not);
// - `0N`: not the international (IDD) prefix `00`, not FR's calling code `33` without a `+`, so it is a
//   national number: the prefix `0` is stripped unless `0N` matches the national number pattern and N
//   does not, and only if N's length is possible for FR;
// - valid: N matches the national number pattern and one type's pattern (fixed line, then the others
//   in getNumberType's order), a type counting only when N's length is among its possible lengths.
// Each of these facts is checked on the metadata at start-up; if a new metadata breaks one, every
// number asks libphonenumber again (french is null).
const TYPES = ['FIXED_LINE', 'MOBILE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL'] as const;

interface TypeView {
  pattern(): string | undefined;
  possibleLengths(): readonly number[] | undefined;
}
interface MetadataView {
  selectNumberingPlan(country: string): void;
  hasCallingCode(code: string): boolean;
  getCountryCodesForCallingCode(code: string): readonly string[] | undefined;
  nationalNumberPattern(): string;
  possibleLengths(): readonly number[] | undefined;
  type(name: string): TypeView | undefined;
  numberingPlan: {
    callingCode(): string;
    IDDPrefix(): string | undefined;
    nationalPrefixForParsing(): string | undefined;
    nationalPrefixTransformRule(): string | undefined;
  };
}

const entirely = (pattern: string) => new RegExp(`^(?:${pattern})$`);

function frenchCheck(): FrenchCheck | null {
  const metadata = new Metadata() as unknown as MetadataView;
  metadata.selectNumberingPlan('FR');
  const plan = metadata.numberingPlan;
  const countries = metadata.getCountryCodesForCallingCode('33');
  const sound =
    plan.callingCode() === '33' &&
    countries?.length === 1 &&
    countries[0] === 'FR' &&
    !metadata.hasCallingCode('3') &&
    plan.IDDPrefix() === '00' &&
    plan.nationalPrefixForParsing() === '0' &&
    !plan.nationalPrefixTransformRule() &&
    (metadata.possibleLengths() ?? []).includes(9);
  if (!sound) return null;
  const general = entirely(metadata.nationalNumberPattern());
  const types = TYPES.flatMap((name) => {
    const type = metadata.type(name);
    const pattern = type?.pattern();
    return type && pattern ? [{ pattern: entirely(pattern), lengths: type.possibleLengths() }] : [];
  });
  return {
    isValid(national) {
      // `0N` matching the national pattern while N does not: libphonenumber keeps the 0. Ask it.
      if (general.test(`0${national}`) && !general.test(national)) return undefined;
      if (!general.test(national)) return false;
      return types.some((type) => (!type.lengths || type.lengths.includes(national.length)) && type.pattern.test(national));
    },
  };
}

const french = frenchCheck();

/** Whether the metadata let the French shapes take the fast route (a test keeps it from silently turning off). */
export const frenchRouteActive = french !== null;

const MEMO_SIZE = 1024;
const MEMO_MAX_LENGTH = 64;
const memo = new Map<string, boolean>();

/** libphonenumber's answer, remembered for the last MEMO_SIZE short strings asked (least recently used dropped). */
function memoised(value: string): boolean {
  if (value.length > MEMO_MAX_LENGTH) return isValidPhoneNumber(value, 'FR');
  const known = memo.get(value);
  if (known !== undefined) {
    memo.delete(value);
    memo.set(value, known);
    return known;
  }
  const valid = isValidPhoneNumber(value, 'FR');
  if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
  memo.set(value, valid);
  return valid;
}

/** The library's check alone, for the property test that holds isValidPhone to it. */
export const libraryIsValidPhone = (value: string): boolean => isValidPhoneNumber(value, 'FR');
