import type Database from 'better-sqlite3';

interface Pending {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  /** Most units of work committed together; the rest wait for the next batch. */
  readonly maxBatch?: number;
}

/**
 * Group commit for SQLite. Units of work (synchronous functions that read and
 * write through the same connection) that arrive in the same turn of the
 * event loop are run one after another inside ONE `BEGIN IMMEDIATE`
 * transaction, each in its own SAVEPOINT, and committed with one fsync:
 *
 * - each unit sees everything the units before it in the batch wrote, so a
 *   command is decided against the state that includes them;
 * - a unit that throws is rolled back to its savepoint alone and its caller
 *   gets the error; the others are unaffected;
 * - no caller's promise settles before the COMMIT returned, so with
 *   `synchronous=FULL` nothing is acknowledged before it is durable. If the
 *   COMMIT itself fails, every unit of the batch gets that error.
 */
export class GroupCommitRunner {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly committedListeners = new Set<() => void>();

  constructor(
    private readonly sqlite: Database.Database,
    options: GroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 512;
  }

  /** Called after every COMMIT (live readers' wake-up); returns the unsubscribe function. */
  onCommitted(listener: () => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate runs after the I/O callbacks of this turn: every request that is ready joins the batch.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0) this.schedule();
    if (batch.length === 0) return;

    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      this.sqlite.exec('BEGIN IMMEDIATE');
    } catch (error) {
      for (const unit of batch) unit.reject(error);
      return;
    }
    try {
      for (const unit of batch) {
        this.sqlite.exec('SAVEPOINT unit');
        try {
          const value = unit.work();
          this.sqlite.exec('RELEASE unit');
          outcomes.push({ ok: true, value });
        } catch (error) {
          this.sqlite.exec('ROLLBACK TO unit');
          this.sqlite.exec('RELEASE unit');
          outcomes.push({ ok: false, value: error });
        }
      }
      this.sqlite.exec('COMMIT');
    } catch (error) {
      if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
      for (const unit of batch) unit.reject(error);
      return;
    }
    batch.forEach((unit, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.value);
    });
    for (const listener of [...this.committedListeners]) listener();
  }
}
