import { numberWhere, stringWhere } from '../validation/fast-checks.js';
import { isFrenchPostcode, isValidPhone } from './identifiers.js';
import { isCalendarDate, isIsoDateTime } from './iso-dates.js';

/** payload-fields.ts and iso-dates.ts as plain checks, for the account payload's fast path (account-payload-fast.ts). */

export const isoDate = stringWhere(isCalendarDate);
export const isoDateTime = stringWhere(isIsoDateTime);
export const phoneNumber = stringWhere((value) => value === '' || isValidPhone(value));
export const postcode = (allowEmpty: boolean) => stringWhere((value) => (allowEmpty && value === '') || isFrenchPostcode(value));
/** Non-negative, at most two decimals as String() writes the number. */
export const money = numberWhere((value) => value >= 0 && /^-?\d+(?:\.\d{1,2})?$/.test(String(value)));
