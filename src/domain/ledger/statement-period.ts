import { nextDay } from '../account-import-process/iso-dates.js';

/**
 * The first day of the account's open (open-ended) statement period: the day after the latest of the staged
 * payload's last_billed_to_date and the end of every historical statement recorded on the account. Null when
 * the account has neither: then no transaction is outside it.
 */
export function openPeriodStart(lastBilledToDate: string | null, latestStatementEnd: string | null): string | null {
  const bounds = [lastBilledToDate, latestStatementEnd].filter((date): date is string => date !== null);
  if (bounds.length === 0) return null;
  // Valid YYYY-MM-DD dates compare as strings.
  return nextDay(bounds.reduce((latest, date) => (date > latest ? date : latest)));
}

export function laterDate(a: string | null, b: string): string {
  return a === null || b > a ? b : a;
}
