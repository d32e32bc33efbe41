import type { Clock } from '../application/context.js';
import type { Sleep } from './sleep.js';

/**
 * At most `limit` calls in any window of `windowMs` (a sliding log of start
 * times, so unlike a token bucket it never lets 2N through across a window
 * edge): with starts t0 <= t1 <= ..., t(i+limit) - t(i) >= windowMs.
 * The limit is read on every acquire, so a changed setting applies at once.
 * `pauseUntil` holds every call back until a time (an operator's Retry-After).
 */
export class SlidingWindowThrottle {
  private starts: number[] = [];
  private pausedUntil = 0;

  constructor(
    private readonly clock: Clock,
    private readonly sleep: Sleep,
    private readonly windowMs = 1_000,
  ) {}

  pauseUntil(time: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, time);
  }

  /** Waits for a slot and takes it. False when `signal` aborted first (no slot taken). */
  async acquire(limit: () => Promise<number>, signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal?.aborted) return false;
      const max = Math.max(1, await limit());
      const now = this.clock().getTime();
      this.starts = this.starts.filter((t) => t > now - this.windowMs);
      const full = this.starts.length >= max ? (this.starts[this.starts.length - max] ?? now) + this.windowMs - now : 0;
      const wait = Math.max(this.pausedUntil - now, full);
      if (wait <= 0) {
        this.starts.push(now);
        return true;
      }
      await this.sleep(wait, signal);
    }
  }
}
