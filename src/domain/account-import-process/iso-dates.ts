import { z } from 'zod';

// RFC 3339 profile of ISO 8601: seconds required, optional fraction, `Z` or `±HH:MM`.
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` naming a day that exists (2024-02-29 does, 2025-02-30 not). */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** ISO 8601 date-time with `Z` or a numeric offset, naming a real date and time of day. */
export function isIsoDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [, date = '', hh, mm, ss, offH, offM] = match;
  if (!isCalendarDate(date)) return false;
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return false;
  if (offH !== undefined && (Number(offH) > 23 || Number(offM) > 59)) return false;
  return true;
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
  return z.string().refine(isCalendarDate, { message: 'Date has wrong format. Use YYYY-MM-DD with a real calendar day.' });
}

/** A datetime field: ISO 8601 with `Z` or a numeric offset, else code `invalid`. */
export function isoDateTime() {
  return z.string().refine(isIsoDateTime, {
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
