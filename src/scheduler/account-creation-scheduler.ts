import type { Logger } from 'pino';
import type { AccountImportStatusRow } from '../../projections/account-import-statuses.js';
import { claimAccountCreation, runClaimedCreation, type DueCreation, type RunOutcome } from '../application/account-creations.js';
import type { Actor, LedgerContext } from '../application/context.js';
import { DomainError } from '../domain/errors.js';
import { realSleep, type Sleep } from '../worker/sleep.js';
import { ConcurrencyError } from '../store/event-store.js';

export interface SchedulerOptions {
  /**
   * How long a claim holds. A run is local (no outside call) and one
   * transaction, so seconds are plenty; a worker that died is replaced once it
   * runs out.
   */
  readonly leaseMs: number;
  /** How often an idle scheduler looks at the queue: the most a run starts after its window opened. */
  readonly idlePollMs: number;
  /** Creations read from the queue per query. */
  readonly batchSize: number;
}

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = { leaseMs: 60_000, idlePollMs: 1_000, batchSize: 50 };

export interface SchedulerDeps {
  readonly ctx: LedgerContext;
  readonly logger: Logger;
  /** Recorded as the actor of the scheduler's events. */
  readonly actor: Actor;
  readonly sleep?: Sleep;
  readonly onRun?: (due: DueCreation, outcome: RunOutcome | 'window_elapsed') => void;
  readonly options?: Partial<SchedulerOptions>;
}

/**
 * Runs v2 scheduled account creations as their windows open (README "v2
 * accounts"). The schedule lives in the log, so a restarted service finds it
 * again in the projection; on PostgreSQL every instance runs a scheduler, and
 * each creation runs once: a claim is a command decided under the writers'
 * lock (one instance holds it at a time), and the run commits with its outcome
 * only while its claim holds (src/application/account-creations.ts).
 */
export class AccountCreationScheduler {
  private readonly options: SchedulerOptions;
  private readonly sleep: Sleep;
  private stopping = new AbortController();
  private running: Promise<void> | null = null;

  constructor(private readonly deps: SchedulerDeps) {
    this.options = { ...DEFAULT_SCHEDULER_OPTIONS, ...deps.options };
    this.sleep = deps.sleep ?? realSleep;
  }

  start(): void {
    if (this.running) return;
    this.stopping = new AbortController();
    this.running = this.serve(this.stopping.signal).finally(() => {
      this.running = null;
    });
  }

  /** Stops taking creations; a run in flight finishes first. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  /** One pass over what is due now, each creation at most once; returns how many this scheduler ran. */
  async runDue(): Promise<{ readonly ran: number }> {
    return { ran: await this.pass(this.stopping.signal) };
  }

  private async serve(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const ran = await this.pass(signal);
        if (ran === 0) await this.sleep(this.options.idlePollMs, signal);
      } catch (error) {
        // The store failed (disk, lock timeout): the claim, if any, runs out and the creation is taken again.
        this.deps.logger.error({ err: error }, 'scheduler: could not read or record; retrying');
        await this.sleep(this.options.idlePollMs, signal);
      }
    }
  }

  private async pass(signal: AbortSignal): Promise<number> {
    const seen = new Set<string>();
    let ran = 0;
    while (!signal.aborted) {
      const due = await this.deps.ctx.read.dueAccountCreations(this.deps.ctx.clock().toISOString(), this.options.batchSize + seen.size);
      const fresh = due.filter((row) => row.taskId !== null && !seen.has(row.taskId));
      if (fresh.length === 0) break;
      for (const row of fresh) {
        if (signal.aborted) break;
        seen.add(row.taskId ?? '');
        if (await this.run(row)) ran++;
      }
    }
    return ran;
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
    let claim;
    try {
      claim = await claimAccountCreation(ctx, due, this.options.leaseMs, actor);
    } catch (error) {
      // Another scheduler claimed, ran or the operator cancelled it between our read and our write: not an error.
      if (error instanceof DomainError || error instanceof ConcurrencyError) return false;
      throw error;
    }
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
