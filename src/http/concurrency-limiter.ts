import type { ReadModels } from '../queries/read-models.js';

export interface ConcurrencySlot {
  release(): void;
}

/**
 * Spec 8.1: an optional limit on accounts processed at once, disabled by
 * default. The limit is read from the service-config projection on every
 * request, so `import-ledger config set` takes effect at once.
 */
export class ConcurrencyLimiter {
  private inFlight = 0;
  readonly retryAfterSeconds = 1;

  constructor(private readonly read: ReadModels) {}

  async tryAcquire(): Promise<ConcurrencySlot | null> {
    const limit = await this.read.configValue('process-concurrency-limit');
    if (limit !== null && this.inFlight >= limit) return null;
    this.inFlight++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.inFlight--;
      },
    };
  }
}
