import { nextDay } from '../account-import-process/iso-dates.js';

/**
 * The first day of the account's open (open-ended) statement period: the day after the latest of the staged
 * payload's last_billed_to_date and the end of every historical statement recorded on the account. Null when
 * the account has neither: then no transaction is outside it.
 */
export function openPeriodStart(lastBilledToDate: string | null, latestStatementEnd: string | null): string | null {
  const latest = lastBilledToDate === null ? latestStatementEnd : laterDate(latestStatementEnd, lastBilledToDate);
  return latest === null ? null : nextDay(latest);
}

/** The later of two valid `YYYY-MM-DD` dates (they compare as strings), `a` absent or not. */
export function laterDate(a: string | null, b: string): string {
  return a === null || b > a ? b : a;
}
