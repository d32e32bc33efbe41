import { isValidPhoneNumber } from 'libphonenumber-js/max';
import { LRUCache } from 'lru-cache';

/**
 * The phone number check of the account payload: a French number (national or +33 form) or any
 * valid international number, `isValidPhoneNumber(value, 'FR')` against libphonenumber's full
 * ("max") metadata, since the default "min" metadata checks only lengths.
 *
 * The library's check is costly next to the rest of the payload's rules, and validate, stage and
 * process check the same numbers in turn, so short strings' answers are remembered (least recently
 * used dropped); a long string is asked afresh, which keeps the memo's memory bounded.
 */
export function isValidPhone(value: string): boolean {
  if (value.length > MEMO_MAX_LENGTH) return libraryIsValidPhone(value);
  const known = memo.get(value);
  if (known !== undefined) return known;
  const valid = libraryIsValidPhone(value);
  memo.set(value, valid);
  return valid;
}

const MEMO_MAX_LENGTH = 64;
const memo = new LRUCache<string, boolean>({ max: 1024 });

/** The library's check alone, for the property test that holds isValidPhone to it. */
export const libraryIsValidPhone = (value: string): boolean => isValidPhoneNumber(value, 'FR');
