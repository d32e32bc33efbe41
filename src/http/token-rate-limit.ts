import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { effectiveConfigValue } from '../domain/service-config/service-config-settings.js';
import type { ReadModels } from '../queries/read-models.js';
import type { SharedLimits } from '../store/shared-limits.js';
import { throttled } from './errors.js';

const WINDOW_MS = 60_000;

/**
 * The obtainToken rate limit, `import-ledger config set token-requests-per-minute <N>` (30 by default):
 * at most N calls in any minute from one client address, and N for one API key. A sliding window of
 * the shared limits (one row per name on PostgreSQL, so it holds for every instance together); a token
 * bucket would not do, as it holds at most one second's worth and N a minute is less than one a second.
 * Past it: `throttled` with `Retry-After`.
 */
export function tokenRequestLimit(read: Pick<ReadModels, 'configValue'>, limits: Pick<SharedLimits, 'takeWindowStart'>) {
  const take = async (name: string, whose: string): Promise<void> => {
    const limit = effectiveConfigValue('token-requests-per-minute', await read.configValue('token-requests-per-minute')) ?? 1;
    const waitMs = await limits.takeWindowStart(`obtain-token:${name}`, limit, WINDOW_MS);
    if (waitMs !== null) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw throttled(`Too many token requests ${whose} (at most ${limit} a minute); retry after ${seconds} s.`, seconds);
    }
  };
  return {
    /** Counts every call, valid or not, before its credential is looked at. */
    fromAddress: (address: string) => take(`address:${address}`, 'from this address'),
    /** Counts the calls that named a valid key (its API key or one of its refresh tokens). */
    forKey: (keyId: string) => take(`key:${keyId}`, 'for this API key'),
  };
}

/**
 * The address of the TCP peer. Behind a proxy that is the proxy's (X-Forwarded-For is not trusted: any
 * caller can write it). A request handed to the app in process (`app.request`, no socket) is `unknown`.
 */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
