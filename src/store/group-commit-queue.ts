/** A unit of work waiting for its batch, with its caller's promise. */
export interface Pending<U> {
  readonly unit: U;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** What one unit of a batch came to: its value, or the error it failed with alone. */
export type Outcome = { readonly ok: boolean; readonly value: unknown };

/** A promise for `unit`, whose pending entry `place` puts where it will run. */
export function pending<T, U>(unit: U, place: (entry: Pending<U>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => place({ unit, resolve: resolve as (value: unknown) => void, reject }));
}

export function settle<U>(entry: Pending<U>, outcome: Outcome): void {
  if (outcome.ok) entry.resolve(outcome.value);
  else entry.reject(outcome.value);
}

export function settleAll<U>(batch: readonly Pending<U>[], outcomes: readonly Outcome[]): void {
  batch.forEach((entry, i) => settle(entry, outcomes[i]!));
}

export interface GroupCommitQueueOptions {
  /** Most units a batch takes; the rest wait for the next one. */
  readonly maxBatch: number;
  /** Turns of the event loop a batch gathers units for before it runs (1: what the turn that scheduled it brought). */
  readonly gatherTurns?: number;
  /** While true, a gathered batch that is not full waits for `resume`. */
  readonly hold?: () => boolean;
}

/**
 * The queue of both stores' group commit: units that arrive within `gatherTurns` turns of the event loop
 * run as one batch (at once when it is full), one batch at a time. setImmediate runs after a turn's I/O
 * callbacks, so every request ready in a turn joins; a second turn takes in the requests a client sends
 * as the answers of the previous commit reach it, which would otherwise make a batch of their own and
 * write again the pages every unit shares. An idle turn costs microseconds.
 */
export class GroupCommitQueue<U> {
  private readonly queue: Pending<U>[] = [];
  private scheduled = false;
  private turnsLeft = 0;
  private running: Promise<void> | null = null;

  constructor(
    private readonly runBatch: (batch: Pending<U>[]) => void | Promise<void>,
    private readonly options: GroupCommitQueueOptions,
  ) {}

  get length(): number {
    return this.queue.length;
  }

  add<T>(unit: U): Promise<T> {
    return pending(unit, (entry) => {
      this.queue.push(entry);
      this.schedule();
    });
  }

  /** Up to `room` units off the head of the queue, while `fits` holds: they join a batch under way. */
  take(room: number, fits: (unit: U) => boolean): Pending<U>[] {
    let count = 0;
    while (count < Math.min(room, this.queue.length) && fits(this.queue[count]!.unit)) count++;
    return this.queue.splice(0, count);
  }

  /** Runs the batch `hold` kept back, if any. */
  resume(): void {
    if (!this.scheduled && !this.running && this.queue.length > 0) this.flush();
  }

  /** Resolves once nothing is queued or running. */
  async drained(): Promise<void> {
    while (this.running || this.queue.length > 0) await (this.running ?? new Promise((resolve) => setTimeout(resolve, 5)));
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    this.turnsLeft = Math.max(1, this.options.gatherTurns ?? 1);
    setImmediate(this.onTurn);
  }

  private readonly onTurn = (): void => {
    const full = this.queue.length >= this.options.maxBatch;
    if (!full && --this.turnsLeft > 0) {
      setImmediate(this.onTurn);
      return;
    }
    if (!full && this.options.hold?.()) {
      this.scheduled = false;
      return;
    }
    this.flush();
  };

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.options.maxBatch);
    const ran = batch.length > 0 ? this.runBatch(batch) : undefined;
    if (!ran) {
      this.next();
      return;
    }
    // A batch that throws fails its units still unsettled rather than the process.
    this.running = ran
      .catch((error: unknown) => batch.forEach((entry) => entry.reject(error)))
      .finally(() => {
        this.running = null;
        this.next();
      });
  }

  private next(): void {
    if (this.queue.length > 0) this.schedule();
  }
}
