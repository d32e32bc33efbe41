/** A slot held by the caller until it releases it. */
export interface SlotLease {
  release(): Promise<void>;
}

/** Limits that hold for every process serving the database (a port): on SQLite, one server process per file, in the process. */
export interface SharedLimits {
  /** One of `limit` slots named `name`, or null when all are taken (`limit` null: a slot still counted where the store can). */
  tryAcquireSlot(name: string, limit: number | null): Promise<SlotLease | null>;
  /** A token from bucket `name` (refilled at `rate` a second, holding `rate`): null when taken, else whole seconds to wait. */
  takeToken(name: string, rate: number): Promise<number | null>;
  /**
   * A start in the sliding window `name`: at most `limit` starts in any `windowMs` (never 2 x limit across a
   * window edge, unlike a token bucket), none before its pause ends. null when taken, else the ms to wait.
   */
  takeWindowStart(name: string, limit: number, windowMs: number): Promise<number | null>;
  /** Holds every start of window `name` back until `untilMs` (ms since the epoch); a pause only grows. */
  pauseWindow(name: string, untilMs: number): Promise<void>;
}

/** A sliding window's record: the start times still inside it, and when its pause ends. */
export interface WindowState {
  readonly startsMs: readonly number[];
  readonly pausedUntilMs: number;
}

export const EMPTY_WINDOW: WindowState = { startsMs: [], pausedUntilMs: 0 };

/** One attempt to start in a sliding window at `nowMs`: with starts t0 <= t1 <= ..., t(i + limit) - t(i) >= windowMs. */
export function takeWindowStart(
  state: WindowState,
  nowMs: number,
  limit: number,
  windowMs: number,
): { readonly state: WindowState; readonly waitMs: number | null } {
  const max = Math.max(1, Math.floor(limit));
  // Sorted: on PostgreSQL the times come from the instances' clocks, which may be a little apart.
  const starts = state.startsMs.filter((t) => t > nowMs - windowMs).sort((a, b) => a - b);
  const full = starts.length >= max ? (starts[starts.length - max] ?? nowMs) + windowMs - nowMs : 0;
  const waitMs = Math.max(state.pausedUntilMs - nowMs, full);
  if (waitMs > 0) return { state: { ...state, startsMs: starts }, waitMs };
  // Only the last `max` starts can matter to a later call.
  return { state: { ...state, startsMs: [...starts, nowMs].slice(-max) }, waitMs: null };
}

export const pausedWindow = (state: WindowState, untilMs: number): WindowState => ({
  ...state,
  pausedUntilMs: Math.max(state.pausedUntilMs, untilMs),
});

/** Token buckets in memory, one per name (see `takeToken`). */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  constructor(private readonly now: () => Date) {}

  take(name: string, rate: number): number | null {
    const atMs = this.now().getTime();
    const bucket = this.buckets.get(name) ?? { tokens: rate, atMs };
    const elapsed = Math.max(0, atMs - bucket.atMs) / 1000;
    bucket.tokens = Math.min(rate, bucket.tokens + elapsed * rate);
    bucket.atMs = atMs;
    this.buckets.set(name, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return null;
    }
    return secondsToWait(bucket.tokens, rate);
  }
}

/** The in-process limits: exact for one process (the SQLite store's). */
export class InProcessLimits implements SharedLimits {
  private readonly inFlight = new Map<string, number>();
  private readonly buckets: TokenBuckets;
  private readonly windows = new Map<string, WindowState>();

  constructor(private readonly now: () => Date) {
    this.buckets = new TokenBuckets(now);
  }

  async tryAcquireSlot(name: string, limit: number | null): Promise<SlotLease | null> {
    const count = this.inFlight.get(name) ?? 0;
    if (limit !== null && count >= limit) return null;
    this.inFlight.set(name, count + 1);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        this.inFlight.set(name, (this.inFlight.get(name) ?? 1) - 1);
      },
    };
  }

  async takeToken(name: string, rate: number): Promise<number | null> {
    return this.buckets.take(name, rate);
  }

  async takeWindowStart(name: string, limit: number, windowMs: number): Promise<number | null> {
    const taken = takeWindowStart(this.windows.get(name) ?? EMPTY_WINDOW, this.now().getTime(), limit, windowMs);
    this.windows.set(name, taken.state);
    return taken.waitMs;
  }

  async pauseWindow(name: string, untilMs: number): Promise<void> {
    this.windows.set(name, pausedWindow(this.windows.get(name) ?? EMPTY_WINDOW, untilMs));
  }
}

/** Whole seconds until a bucket holding `tokens` (< 1) refilled at `rate` a second holds one. */
export const secondsToWait = (tokens: number, rate: number): number => Math.max(1, Math.ceil((1 - tokens) / rate));
