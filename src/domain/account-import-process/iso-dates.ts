import { z } from 'zod';

/**
 * A day that exists, `YYYY-MM-DD`, years 0001 to 9999: the 29th of February only in leap years
 * (divisible by 4, centuries only when divisible by 400). Written as one pattern so that the
 * document states the rule the service checks.
 */
const LEAP_DAY = '(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29';
const OTHER_DAY = '\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))';
const DAY = `(?!0000)(?:${LEAP_DAY}|${OTHER_DAY})`;
/** RFC 3339 profile of ISO 8601: seconds required, at most 9 fraction digits, `Z` or `±HH:MM`. */
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)';
const CALENDAR_DATE = new RegExp(`^${DAY}$`);
const DATE_TIME = new RegExp(`^${DAY}T${TIME}$`);

/** `YYYY-MM-DD` naming a day that exists (2024-02-29 does, 2025-02-30 not). */
export function isCalendarDate(value: string): boolean {
  return CALENDAR_DATE.test(value);
}

/** ISO 8601 date-time with `Z` or a numeric offset, naming a real date and time of day. */
export function isIsoDateTime(value: string): boolean {
  return DATE_TIME.test(value);
}

/** The calendar day after `date` (a valid `YYYY-MM-DD`), computed without any clock. */
export function nextDay(date: string): string {
  const [year = 0, month = 0, day = 0] = date.split('-').map(Number);
  if (day < daysInMonth(year, month)) return format(year, month, day + 1);
  if (month < 12) return format(year, month + 1, 1);
  return format(year + 1, 1, 1);
}

/** A date field: a string holding a real calendar date, else code `invalid`. */
export function isoDate() {
  return z.stringFormat('date', CALENDAR_DATE, { message: 'Date has wrong format. Use YYYY-MM-DD with a real calendar day.' });
}

/** A datetime field: ISO 8601 with `Z` or a numeric offset, else code `invalid`. */
export function isoDateTime() {
  return z.stringFormat('date-time', DATE_TIME, {
    message: 'Datetime has wrong format. Use YYYY-MM-DDTHH:MM:SS with Z or a numeric offset (e.g. +01:00).',
  });
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function format(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Spec 2.1 writes datetimes as YYYY-MM-DDTHH:MM:SSZ; the log keeps milliseconds, responses do not. */
export function specDateTime(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}
