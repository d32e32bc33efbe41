import type { Clock } from '../application/clock-and-ids.js';
import { InProcessLimits, type SharedLimits } from '../store/shared-limits.js';
import type { Sleep } from '../worker/sleep.js';

/**
 * At most `limit` call starts in any window of `windowMs` (a sliding log, so unlike a token bucket it never
 * lets 2N through across a window edge: t(i+limit) - t(i) >= windowMs). The window `name` lives in `limits`,
 * shared by every PostgreSQL instance; the limit is read on every acquire, so a changed setting applies at
 * once. `pauseUntil` holds every call back until a time (an operator's Retry-After).
 */
export class SlidingWindowThrottle {
  constructor(
    clock: Clock,
    private readonly sleep: Sleep,
    private readonly limits: SharedLimits = new InProcessLimits(clock),
    private readonly name = 'throttle',
    private readonly windowMs = 1_000,
  ) {}

  async pauseUntil(time: number): Promise<void> {
    await this.limits.pauseWindow(this.name, time);
  }

  /** Waits for a slot and takes it. False when `signal` aborted first (no slot taken). */
  async acquire(limit: () => Promise<number>, signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal?.aborted) return false;
      const wait = await this.limits.takeWindowStart(this.name, await limit(), this.windowMs);
      if (wait === null) return true;
      await this.sleep(wait, signal);
    }
  }
}
