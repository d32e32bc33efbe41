import { ConcurrencyError, UniqueConstraintError } from '../store/event-store.js';

/** Re-runs `attempt`, which reads everything afresh, when its facts went stale before the append (a guarded stream moved on) or a generated value hit a unique index. */
export async function withRetry<T>(attempt: () => Promise<T>, tries = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= tries || !(error instanceof ConcurrencyError || error instanceof UniqueConstraintError)) throw error;
    }
  }
}
