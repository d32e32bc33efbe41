import { ConcurrencyError, UniqueConstraintError } from '../store/event-store.js';

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
      if (i >= tries || !(error instanceof ConcurrencyError || error instanceof UniqueConstraintError)) throw error;
    }
  }
}
