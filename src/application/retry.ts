import { ConcurrencyError } from '../store/event-store.js';

/**
 * Re-runs `attempt` when the facts it decided on went stale between reading
 * them and appending (a guarded stream moved on), or when a generated value
 * collided with a unique index. Each attempt reads everything afresh.
 */
export async function withRetry<T>(attempt: () => Promise<T>, tries = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= tries || !(error instanceof ConcurrencyError || isUniqueViolation(error))) throw error;
    }
  }
}

/** SQLite (better-sqlite3) and PostgreSQL (23505) unique-constraint violations. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  const code = (error as { code: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
