import type { RetryPolicy } from '../retry-policy.js';

/** An email is retried after a delivery that certainly did not happen (SMTP 4xx, or no server); after the last attempt it fails (`gave_up`). */
export const DEFAULT_EMAIL_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 60_000,
  maxDelayMs: 60 * 60_000,
};
