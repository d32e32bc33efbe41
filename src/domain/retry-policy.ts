/** How background work is retried after a failure that may pass: failed attempt n waits `baseDelayMs * 2^(n-1)`, capped at `maxDelayMs`; after `maxAttempts` it is given up. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** The wait before the next attempt, after attempt `attempt` failed. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.baseDelayMs * 2 ** Math.max(0, attempt - 1), policy.maxDelayMs);
}
