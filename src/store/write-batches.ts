const PHASES = ['readMs', 'decideMs', 'loadMs', 'commitMs'] as const;
export type BatchPhases = Readonly<Record<(typeof PHASES)[number], number>>;

/** How one PostgreSQL batch ran (`redone`: pipelined, rolled back, redone unit by unit) and held the writers' lock. */
export interface BatchReport {
  readonly units: number;
  readonly path: 'pipelined' | 'per-unit' | 'redone';
  /** From BEGIN sent to the lock had (the head of the log read under it), in ms. */
  readonly lockWaitMs: number;
  /** From then to COMMIT answered: the writers' lock held, in ms. */
  readonly lockHeldMs: number;
  /** Where a pipelined batch's lock hold went, in ms: streams read, units decided, rows evolved and loaded, writes with COMMIT. */
  readonly phases?: BatchPhases;
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
  readonly phases?: BatchPhases;
}

function emptyInterval(since: number) {
  const paths = { pipelined: 0, redone: 0, 'per-unit': 0 };
  const phases = { readMs: 0, decideMs: 0, loadMs: 0, commitMs: 0 };
  return { since, batches: 0, units: 0, waited: 0, held: 0, guessed: 0, missed: 0, phased: 0, paths, phases };
}

/** Sums the writer's batch reports; `take` returns the interval's summary and starts a new one. */
export class BatchStats {
  private sum = emptyInterval(performance.now());

  readonly add = (report: BatchReport): void => {
    const sum = this.sum;
    sum.batches++;
    sum.units += report.units;
    sum.paths[report.path]++;
    sum.waited += report.lockWaitMs;
    sum.held += report.lockHeldMs;
    sum.guessed += report.rows?.guessed ?? 0;
    sum.missed += report.rows?.missed ?? 0;
    if (report.phases) {
      sum.phased++;
      for (const name of PHASES) sum.phases[name] += report.phases[name];
    }
  };

  take(): BatchSummary {
    const now = performance.now();
    const sum = this.sum;
    this.sum = emptyInterval(now);
    const round = (n: number) => Math.round(n * 100) / 100;
    const phases = { ...sum.phases };
    for (const name of PHASES) phases[name] = round(sum.phases[name] / sum.phased);
    return {
      seconds: round((now - sum.since) / 1000),
      batches: sum.batches,
      units: sum.units,
      pipelined: sum.paths.pipelined,
      redone: sum.paths.redone,
      perUnit: sum.paths['per-unit'],
      lockWaitMs: sum.batches ? round(sum.waited / sum.batches) : 0,
      lockHeldMsPerUnit: sum.units ? round(sum.held / sum.units) : 0,
      lockHeldShare: round(sum.held / Math.max(1, now - sum.since)),
      ...(sum.guessed + sum.missed > 0 ? { rowsGuessed: sum.guessed, rowsMissed: sum.missed } : {}),
      ...(sum.phased > 0 ? { phases } : {}),
    };
  }
}
