import { createMiddleware } from 'hono/factory';
import type { ReadModels } from '../queries/read-models.js';
import type { SharedLimits, SlotLease } from '../store/shared-limits.js';
import type { AppEnv } from './env.js';
import { throttled } from './errors.js';

/**
 * Spec 8.1: an optional limit on accounts processed at once, disabled by
 * default. The limit is read from the service-config projection on every
 * request, so `import-ledger config set` takes effect at once.
 */
export class ConcurrencyLimiter {
  readonly retryAfterSeconds = 1;

  constructor(
    private readonly read: Pick<ReadModels, 'configValue'>,
    /** Where the slots are counted: across every instance on PostgreSQL, in the process on SQLite. */
    private readonly limits: Pick<SharedLimits, 'tryAcquireSlot'>,
  ) {}

  async tryAcquire(): Promise<SlotLease | null> {
    return this.limits.tryAcquireSlot('process', await this.read.configValue('process-concurrency-limit'));
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
      await slot.release();
    }
  });
}
