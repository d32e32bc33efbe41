import { createMiddleware } from 'hono/factory';
import type { ReadModels } from '../queries/read-models.js';
import type { AppEnv } from './env.js';
import { throttled } from './errors.js';

export interface ConcurrencySlot {
  release(): void;
}

/**
 * Spec 8.1: an optional limit on accounts processed at once, disabled by
 * default. The limit is read from the service-config projection on every
 * request, so `import-ledger config set` takes effect at once.
 */
export class ConcurrencyLimiter {
  private inFlight = 0;
  readonly retryAfterSeconds = 1;

  constructor(private readonly read: Pick<ReadModels, 'configValue'>) {}

  async tryAcquire(): Promise<ConcurrencySlot | null> {
    const limit = await this.read.configValue('process-concurrency-limit');
    if (limit !== null && this.inFlight >= limit) return null;
    this.inFlight++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.inFlight--;
      },
    };
  }
}

/** 429 `throttled` with Retry-After when the limit is reached; the slot is held until the response is ready. */
export function processConcurrencyLimit(limiter: ConcurrencyLimiter) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const slot = await limiter.tryAcquire();
    if (!slot) {
      throw throttled('Too many accounts are being processed at once; retry once other accounts finish processing.', limiter.retryAfterSeconds);
    }
    try {
      await next();
    } finally {
      slot.release();
    }
  });
}
