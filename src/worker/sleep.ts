/**
 * Waits `ms` milliseconds, or less when `signal` aborts (it then resolves, it
 * does not reject). Injected into the background workers and the populate
 * throttle so tests can run them on a fake clock: a fake sleep advances the
 * clock instead of waiting.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
