import { createMiddleware } from 'hono/factory';
import { effectiveConfigValue } from '../domain/service-config/service-config-settings.js';
import type { ReadModels } from '../queries/read-models.js';
import type { SharedLimits } from '../store/shared-limits.js';
import type { AppEnv } from './env.js';
import { throttled } from './errors.js';

/** The token bucket per API key, in memory (the algorithm; `SharedLimits.takeToken` is what the middleware uses). */
export { TokenBuckets as RequestRateLimiter } from '../store/shared-limits.js';

/**
 * The per-API-key request-rate limit, `import-ledger config set
 * request-rate-per-second <N|off>` (off by default), read on every request so
 * a change applies at once. Past it: 429 `throttled` with `Retry-After`.
 * Runs after authentication (the key is the principal's) and before the body is read.
 */
export function requestRateLimit(read: Pick<ReadModels, 'configValue'>, limits: Pick<SharedLimits, 'takeToken'>) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const rate = effectiveConfigValue('request-rate-per-second', await read.configValue('request-rate-per-second'));
    if (rate === null) return next();
    // One bucket per key for every instance of the service (PostgreSQL: a row; SQLite: in the process).
    const wait = await limits.takeToken(`request-rate:${c.get('principal').keyId}`, rate);
    if (wait !== null) {
      throw throttled(`Too many requests for this API key (at most ${rate} a second); retry after ${wait} s.`, wait);
    }
    await next();
  });
}
