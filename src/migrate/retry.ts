import { NoAnswer, type ApiAnswer } from './api-client.js';
import type { TokenSource } from './token-source.js';

/**
 * When to send a request again, by HTTP status only (the statuses are the contract): 408, 409, 429, 5xx
 * (spec 4.12) and no answer are sent again unchanged with the same Idempotency-Key, so a lost answer is
 * never applied twice; 401 gets a new token first (twice at most); any other 4xx stands. Waits grow
 * exponentially with equal jitter (at least half of each ceiling, so the tries together outlast a service's
 * restart of some 15 s whatever the draws: with full jitter, eight short draws spent every try within a
 * restart of a few seconds), never below the service's Retry-After.
 */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 8, baseDelayMs: 250, maxDelayMs: 15_000 };

/** A Retry-After longer than this is capped: a misconfigured front should not park a migration for hours. */
const MAX_RETRY_AFTER_MS = 60_000;

export type Transience = 'done' | 'transient' | 'reauthenticate';

export function classify(status: number): Transience {
  if (status === 401) return 'reauthenticate';
  if (status === 408 || status === 409 || status === 429 || status >= 500) return 'transient';
  return 'done';
}

/** The wait before try `attempt + 1` (attempt counts from 1): between half the ceiling and the ceiling, and at least what the service asked for. */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | null, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.round(ceiling / 2 + (random() * ceiling) / 2);
  return retryAfterMs === null ? jittered : Math.max(Math.min(retryAfterMs, MAX_RETRY_AFTER_MS), jittered);
}

export type Outcome<B = unknown> =
  /**
   * The last answer (a success, a refusal, or the last transient one when the tries ran out). `unsure`: an
   * earlier try of this send got no answer or a transient one, so it may have been applied: a replayed
   * answer (Idempotent-Replayed) is then this send's own write, not an earlier run's.
   */
  | { readonly kind: 'answer'; readonly answer: ApiAnswer<B>; readonly attempts: number; readonly unsure: boolean }
  /** Not one answer, every try. */
  | { readonly kind: 'no-answer'; readonly error: string; readonly attempts: number }
  /** Stopped (Ctrl-C) while waiting to retry: nothing is known of the item; the journal resumes it. */
  | { readonly kind: 'interrupted' };

export interface Sender {
  /** Sends `request` (given a token) with retries; counts retries in `onRetry`. `B`: the answer bodies the document lists. */
  send<B>(request: (token: string) => Promise<ApiAnswer<B>>): Promise<Outcome<B>>;
}

export function createSender(
  tokens: TokenSource,
  policy: RetryPolicy,
  options: { stopped: () => boolean; onRetry?: (reason: string) => void; sleep?: (ms: number) => Promise<void> },
): Sender {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return {
    async send<B>(request: (token: string) => Promise<ApiAnswer<B>>): Promise<Outcome<B>> {
      let renewals = 0;
      let last: Outcome<B> | null = null;
      for (let attempt = 1; attempt <= policy.attempts; attempt++) {
        const token = await tokens.current();
        let retryAfter: number | null = null;
        try {
          const answer = await request(token);
          last = { kind: 'answer', answer, attempts: attempt, unsure: attempt > 1 };
          const verdict = classify(answer.status);
          if (verdict === 'done') return last;
          if (verdict === 'reauthenticate') {
            if (renewals++ >= 2) return last;
            await tokens.renew(token);
            options.onRetry?.('401');
            attempt--; // a renewed token is not a failed try
            continue;
          }
          retryAfter = answer.retryAfterMs;
          options.onRetry?.(String(answer.status));
        } catch (error) {
          if (!(error instanceof NoAnswer)) throw error;
          last = { kind: 'no-answer', error: error.message, attempts: attempt };
          options.onRetry?.('no answer');
        }
        if (attempt === policy.attempts) break;
        if (options.stopped()) return { kind: 'interrupted' };
        await sleep(backoffMs(policy, attempt, retryAfter));
        if (options.stopped()) return { kind: 'interrupted' };
      }
      return last ?? { kind: 'no-answer', error: 'no attempt made', attempts: 0 };
    },
  };
}
