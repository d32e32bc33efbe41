import { it } from 'vitest';

/**
 * The one way a test file steps aside where what it needs is missing on this machine (PostgreSQL,
 * Chromium, a temporary cluster, `chattr`): true, after registering a skipped test that says why, when
 * `unavailable` names what is missing. Each caller's check throws instead under CI=true, so on CI a
 * missing requirement is a failure, never a silent skip.
 */
export function skipBecause(unavailable: string | null): boolean {
  if (unavailable === null) return false;
  it.skip(`skipped: ${unavailable}`, () => undefined);
  return true;
}
