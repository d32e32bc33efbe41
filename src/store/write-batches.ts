/**
 * How one group-commit batch of a store that reports them (PostgreSQL) ran: how many units, whether
 * pipelined, unit by unit, or pipelined, rolled back and redone unit by unit, and the writers' lock.
 */
export interface BatchReport {
  readonly units: number;
  readonly path: 'pipelined' | 'per-unit' | 'redone';
  /** From BEGIN sent to the lock had (the head of the log read under it), in ms. */
  readonly lockWaitMs: number;
  /** From then to COMMIT answered: the writers' lock held, in ms. */
  readonly lockHeldMs: number;
}

/** What the writer did over an interval: how it batched, and how long it held the cluster's writers' lock. */
export interface BatchSummary {
  readonly seconds: number;
  readonly batches: number;
  readonly units: number;
  readonly pipelined: number;
  readonly redone: number;
  readonly perUnit: number;
  /** Mean wait for the lock a batch, ms. */
  readonly lockWaitMs: number;
  /** Lock held per unit of work (command), ms: the cluster commits at most 1000 / this commands a second. */
  readonly lockHeldMsPerUnit: number;
  /** Share of the interval this instance held the lock. */
  readonly lockHeldShare: number;
}

/** Sums the writer's batch reports; `take` returns the interval's summary and starts a new one. */
export class BatchStats {
  private since = performance.now();
  private batches = 0;
  private units = 0;
  private paths = { pipelined: 0, redone: 0, 'per-unit': 0 };
  private waited = 0;
  private held = 0;

  readonly add = (report: BatchReport): void => {
    this.batches++;
    this.units += report.units;
    this.paths[report.path]++;
    this.waited += report.lockWaitMs;
    this.held += report.lockHeldMs;
  };

  take(): BatchSummary {
    const now = performance.now();
    const round = (n: number) => Math.round(n * 100) / 100;
    const summary: BatchSummary = {
      seconds: round((now - this.since) / 1000),
      batches: this.batches,
      units: this.units,
      pipelined: this.paths.pipelined,
      redone: this.paths.redone,
      perUnit: this.paths['per-unit'],
      lockWaitMs: this.batches ? round(this.waited / this.batches) : 0,
      lockHeldMsPerUnit: this.units ? round(this.held / this.units) : 0,
      lockHeldShare: round(this.held / Math.max(1, now - this.since)),
    };
    this.since = now;
    this.batches = this.units = this.waited = this.held = 0;
    this.paths = { pipelined: 0, redone: 0, 'per-unit': 0 };
    return summary;
  }
}
