/**
 * How a populate request is retried after a transient failure (timeout, network error, 408, 429, 5xx): failed
 * attempt n waits `baseDelayMs * 2^(n-1)`, capped at `maxDelayMs`, and at least the operator's Retry-After
 * (capped at `maxRetryAfterMs`, so a wild header cannot park a request for days); after `maxAttempts` the
 * request is errored. No jitter: the throttle already spaces the calls out.
 */
export interface PopulateRetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
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
  const backoff = Math.min(policy.baseDelayMs * 2 ** Math.max(0, attempt - 1), policy.maxDelayMs);
  if (retryAfterMs === null) return backoff;
  return Math.max(backoff, Math.min(Math.max(0, retryAfterMs), policy.maxRetryAfterMs));
}
