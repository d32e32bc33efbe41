import { backoffMs, type RetryPolicy } from '../retry-policy.js';

/**
 * How a populate request is retried after a transient failure (timeout, network error, 408, 429, 5xx): the
 * backoff, and at least the operator's Retry-After (capped at `maxRetryAfterMs`, so a wild header cannot park
 * a request for days); after the last attempt the request is errored. No jitter: the throttle already spaces
 * the calls out.
 */
export interface PopulateRetryPolicy extends RetryPolicy {
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: PopulateRetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 10 * 60_000,
};

/** The wait before the next attempt, after attempt `attempt` failed. */
export function retryDelayMs(policy: PopulateRetryPolicy, attempt: number, retryAfterMs: number | null): number {
  const backoff = backoffMs(policy, attempt);
  if (retryAfterMs === null) return backoff;
  return Math.max(backoff, Math.min(Math.max(0, retryAfterMs), policy.maxRetryAfterMs));
}
