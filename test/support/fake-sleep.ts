import type { Sleep } from '../../src/worker/sleep.js';
import type { TestClock } from './ledger.js';

/**
 * A sleep that does not wait: it lets other work run (one macrotask) and then
 * moves the test clock to the wake-up time, unless it already passed it. Two
 * sleepers started together wake at the same virtual time, so the clock
 * models concurrent waits instead of adding them up.
 */
export function fakeSleep(clock: TestClock): Sleep {
  return async (ms, signal) => {
    if (signal?.aborted) return;
    const wake = clock.now.getTime() + Math.max(0, ms);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (clock.now.getTime() < wake) clock.now = new Date(wake);
  };
}
