import type { AccountImportStatusRow } from '../../projections/account-import-statuses.js';
import { claimAccountCreation, runClaimedCreation, type DueCreation, type RunOutcome } from '../application/account-creations.js';
import { claimUnlessTaken, PassWorker, runEachDueOnce, type WorkerDeps } from '../worker/background-worker.js';

export interface SchedulerOptions {
  /** How long a claim holds: a run is one local transaction, so seconds are plenty; a dead worker's claim runs out. */
  readonly leaseMs: number;
  /** How often an idle scheduler looks at the queue: the most a run starts after its window opened. */
  readonly idlePollMs: number;
  readonly batchSize: number;
}

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = { leaseMs: 60_000, idlePollMs: 1_000, batchSize: 50 };

export interface SchedulerDeps extends WorkerDeps<SchedulerOptions> {
  readonly onRun?: (due: DueCreation, outcome: RunOutcome | 'window_elapsed') => void;
}

/**
 * Runs v2 scheduled account creations as their windows open (docs/v2-accounts.md "The scheduler"). The
 * schedule lives in the log, so a restarted service finds it again; every PostgreSQL instance runs a
 * scheduler and each creation runs once: a claim is a command decided under the writers' lock, and the
 * run commits only while its claim holds (src/application/account-creations.ts).
 */
export class AccountCreationScheduler extends PassWorker {
  private readonly options: SchedulerOptions;

  constructor(private readonly deps: SchedulerDeps) {
    const options = { ...DEFAULT_SCHEDULER_OPTIONS, ...deps.options };
    // A claim left behind by a failed turn runs out, and the creation is taken again.
    super('scheduler', deps, options.idlePollMs);
    this.options = options;
  }

  /** One pass over what is due now; returns how many this scheduler ran. */
  async runDue(): Promise<{ readonly ran: number }> {
    return { ran: await this.pass(this.signal) };
  }

  protected pass(signal: AbortSignal): Promise<number> {
    const { ctx } = this.deps;
    const read = (limit: number) => ctx.read.dueAccountCreations(ctx.clock().toISOString(), limit);
    return runEachDueOnce({ read, keyOf: (row) => row.taskId, run: (row) => this.run(row), batchSize: this.options.batchSize }, signal);
  }

  /** Claims and runs one creation; false when it was not ours to run. */
  private async run(row: AccountImportStatusRow): Promise<boolean> {
    const { ctx, actor, logger } = this.deps;
    const due: DueCreation = {
      importSupplier: row.importSupplier,
      externalAccountNumber: row.externalAccountNumber,
      taskId: row.taskId ?? '',
      isDryRun: row.isDryRun ?? false,
      operationsTeamName: row.operationsTeamName ?? '',
    };
    const log = logger.child({ taskId: due.taskId, importSupplier: due.importSupplier, externalAccountNumber: due.externalAccountNumber });
    // Null when another scheduler claimed or ran it, or the operator cancelled it, since we read it.
    const claim = await claimUnlessTaken(claimAccountCreation(ctx, due, this.options.leaseMs, actor));
    if (claim === null) return false;
    if (claim.kind === 'window_elapsed') {
      log.warn('scheduler: the window closed before the creation could run; it ends ERRORED');
      this.deps.onRun?.(due, 'window_elapsed');
      return true;
    }
    const outcome = await runClaimedCreation(ctx, due, claim.claimId, actor);
    if (outcome === 'claim_lost') {
      log.warn('scheduler: the claim was lost (cancelled, replaced or taken over); nothing of this run was kept');
      return false;
    }
    log.info({ outcome }, 'scheduled account creation ran');
    this.deps.onRun?.(due, outcome);
    return true;
  }
}
