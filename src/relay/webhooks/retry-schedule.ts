import ms from 'ms';

/** The Standard Webhooks schedule: the wait before each attempt, the first at once; about three days in all. */
export const DEFAULT_RETRY_SCHEDULE = '0,5s,5m,30m,2h,5h,10h,14h,20h,24h';

/** A duration: a number of milliseconds, or a number with a unit ms understands (`5s`, `30m`, `2h`, `3d`); null when it is neither. */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = ms(trimmed as ms.StringValue);
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** A comma-separated schedule of waits (at least one); null when an entry is not a duration. */
export function parseRetrySchedule(text: string): readonly number[] | null {
  const waits = text.split(',').map(parseDuration);
  return waits.length > 0 && waits.every((w): w is number => w !== null) ? waits : null;
}

/**
 * The wait before attempt `attempt + 1` once `attempt` attempts failed: the schedule's entry, past its end
 * its last one (a message is never dropped), with ±20% jitter so retries of many messages spread out, and
 * never shorter than the receiver's Retry-After.
 */
export function retryWaitMs(schedule: readonly number[], attempt: number, retryAfterMs: number | null, random = Math.random): number {
  const base = schedule[Math.min(attempt, schedule.length - 1)] ?? 0;
  const jittered = Math.round(base * (0.8 + 0.4 * random()));
  return Math.max(jittered, retryAfterMs ?? 0);
}
