import { createMiddleware } from 'hono/factory';
import { effectiveConfigValue } from '../domain/service-config/service-config-settings.js';
import type { ReadModels } from '../queries/read-models.js';
import type { AppEnv } from './env.js';
import { throttled } from './errors.js';

interface Bucket {
  tokens: number;
  atMs: number;
}

/**
 * A token bucket per API key: `rate` requests a second on average, bursts of
 * up to `rate` at once (a full bucket holds one second's worth). In memory,
 * per server process: a restart refills every bucket.
 */
export class RequestRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => Date) {}

  /** null when the request may go ahead; else the seconds to wait before a retry can succeed. */
  take(keyId: string, rate: number): number | null {
    const atMs = this.now().getTime();
    const bucket = this.buckets.get(keyId) ?? { tokens: rate, atMs };
    const elapsed = Math.max(0, atMs - bucket.atMs) / 1000;
    bucket.tokens = Math.min(rate, bucket.tokens + elapsed * rate);
    bucket.atMs = atMs;
    this.buckets.set(keyId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
  }
}

/**
 * The per-API-key request-rate limit, `import-ledger config set
 * request-rate-per-second <N|off>` (off by default), read on every request so
 * a change applies at once. Past it: 429 `throttled` with `Retry-After`.
 * Runs after authentication (the key is the principal's) and before the body is read.
 */
export function requestRateLimit(read: Pick<ReadModels, 'configValue'>, limiter: RequestRateLimiter) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const rate = effectiveConfigValue('request-rate-per-second', await read.configValue('request-rate-per-second'));
    if (rate === null) return next();
    const wait = limiter.take(c.get('principal').keyId, rate);
    if (wait !== null) {
      throw throttled(`Too many requests for this API key (at most ${rate} a second); retry after ${wait} s.`, wait);
    }
    await next();
  });
}
