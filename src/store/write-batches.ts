/** How one PostgreSQL group-commit batch ran: its units, its path (`redone`: pipelined, rolled back, redone unit by unit), the writers' lock. */
export interface BatchReport {
  readonly units: number;
  readonly path: 'pipelined' | 'per-unit' | 'redone';
  /** From BEGIN sent to the lock had (the head of the log read under it), in ms. */
  readonly lockWaitMs: number;
  /** From then to COMMIT answered: the writers' lock held, in ms. */
  readonly lockHeldMs: number;
  /** Where a pipelined batch's lock hold went, in ms: streams read, units decided, rows evolved and loaded, writes with COMMIT. */
  readonly phases?: { readonly readMs: number; readonly decideMs: number; readonly loadMs: number; readonly commitMs: number };
  /** Of a pipelined batch: the projection rows read on a guess of what its units touch, and those the guess missed. */
  readonly rows?: { readonly guessed: number; readonly missed: number };
  /** Of a pipelined batch: its units that joined while it waited for the lock, and those that joined once it was had. */
  readonly joined?: { readonly waiting: number; readonly after: number };
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
  /** Projection rows guessed and read with the streams, and those the guesses missed (see BatchReport). */
  readonly rowsGuessed?: number;
  readonly rowsMissed?: number;
  /** Mean of the pipelined batches' phases (see BatchReport), ms a batch. */
  readonly phases?: { readonly readMs: number; readonly decideMs: number; readonly loadMs: number; readonly commitMs: number };
}

/** Sums the writer's batch reports; `take` returns the interval's summary and starts a new one. */
export class BatchStats {
  private since = performance.now();
  private batches = 0;
  private units = 0;
  private paths = { pipelined: 0, redone: 0, 'per-unit': 0 };
  private waited = 0;
  private held = 0;
  private phased = 0;
  private guessed = 0;
  private missed = 0;
  private phases = { readMs: 0, decideMs: 0, loadMs: 0, commitMs: 0 };

  readonly add = (report: BatchReport): void => {
    this.batches++;
    this.units += report.units;
    this.paths[report.path]++;
    this.waited += report.lockWaitMs;
    this.held += report.lockHeldMs;
    if (report.rows) {
      this.guessed += report.rows.guessed;
      this.missed += report.rows.missed;
    }
    if (report.phases) {
      this.phased++;
      for (const name of ['readMs', 'decideMs', 'loadMs', 'commitMs'] as const) this.phases[name] += report.phases[name];
    }
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
      ...(this.guessed + this.missed > 0 ? { rowsGuessed: this.guessed, rowsMissed: this.missed } : {}),
      ...(this.phased > 0
        ? {
            phases: {
              readMs: round(this.phases.readMs / this.phased),
              decideMs: round(this.phases.decideMs / this.phased),
              loadMs: round(this.phases.loadMs / this.phased),
              commitMs: round(this.phases.commitMs / this.phased),
            },
          }
        : {}),
    };
    this.since = now;
    this.batches = this.units = this.waited = this.held = 0;
    this.paths = { pipelined: 0, redone: 0, 'per-unit': 0 };
    this.phased = 0;
    this.guessed = this.missed = 0;
    this.phases = { readMs: 0, decideMs: 0, loadMs: 0, commitMs: 0 };
    return summary;
  }
}
