/**
 * How an email is retried after a delivery that certainly did not happen (SMTP 4xx, or no server): failed
 * attempt n waits `baseDelayMs * 2^(n-1)`, capped at `maxDelayMs`; after `maxAttempts` it fails (`gave_up`).
 */
export interface EmailRetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_EMAIL_RETRY_POLICY: EmailRetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 60_000,
  maxDelayMs: 60 * 60_000,
};

/** The wait before the next attempt, after attempt `attempt` failed. */
export function emailRetryDelayMs(policy: EmailRetryPolicy, attempt: number): number {
  return Math.min(policy.baseDelayMs * 2 ** Math.max(0, attempt - 1), policy.maxDelayMs);
}
