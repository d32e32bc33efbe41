import { accountCreationStreamId, type AccountCreationOutcome } from '../../events/account-creation.js';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { accountProcessDryRunStreamId } from '../../events/account-process-dry-run.js';
import { refusedAttemptStreamId } from '../../events/import-attempt.js';
import { accountCreationDecider } from '../domain/account-creation/decider.js';
import { checkScheduleWindow, type ScheduleWindow } from '../domain/account-creation/schedule-window.js';
import type { AccountPayload } from '../domain/account-import-process/account-payload.js';
import { accountImportProcessDecider } from '../domain/account-import-process/decider.js';
import { DomainError } from '../domain/errors.js';
import { refusedAttemptDecider } from '../domain/import-attempt/decider.js';
import { dryRunSucceeded, prepareProcess, supplierFact, type PreparedProcess } from './account-import-processes.js';
import { recordDecider } from '../domain/import-attempt/decider.js';
import { handle, handleMany, on, type CommandEnvelope, type UntimedStreamCommand } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { isRefusal, refusalCommand } from './refused-attempts.js';
import { withRetry } from './retry.js';

export interface ScheduleAccountCreationRequest {
  readonly payload: AccountPayload;
  /** The team the request names; absent: the supplier's default team. */
  readonly operationsTeamName: string | undefined;
  readonly isDryRun: boolean;
  readonly window: ScheduleWindow;
}

/**
 * v2 POST accounts/: stages the account data and schedules its creation in one unit. Checks in the
 * platform's order: the window, the team (named, else the supplier's default, else
 * `operations_team_should_be_provided`), then the account's lifecycle.
 */
export async function scheduleAccountCreation(ctx: LedgerContext, request: ScheduleAccountCreationRequest, actor: Actor): Promise<{ taskId: string }> {
  const { payload } = request;
  checkScheduleWindow(request.window, ctx.clock().toISOString());
  return withRetry(async () => {
    const supplier = await supplierFact(ctx, payload.import_supplier);
    const team = request.operationsTeamName ?? supplier.defaultOperationsTeamName;
    if (team === null) {
      throw new DomainError(
        'operations_team_should_be_provided',
        `No operations team was given and import supplier ${payload.import_supplier} has no default team.`,
        { attr: 'operations_team_name' },
      );
    }
    if (!(await ctx.read.operationsTeamExists(team))) {
      throw new DomainError('operations_team_name_does_not_exist', `Operations team ${team} does not exist.`, { attr: 'operations_team_name' });
    }
    const taskId = ctx.ids.uuid();
    const ref = { importSupplier: payload.import_supplier, externalAccountNumber: payload.external_account_number };
    await handleMany(
      ctx,
      actor,
      [
        on(accountImportProcessStreamId(ref.importSupplier, ref.externalAccountNumber), accountImportProcessDecider, {
          type: 'StageAccount',
          ...ref,
          payload,
          supplierStatus: supplier.status,
        }),
        on(accountCreationStreamId(ref.importSupplier, ref.externalAccountNumber), accountCreationDecider, {
          type: 'ScheduleAccountCreation',
          ...ref,
          taskId,
          isDryRun: request.isDryRun,
          operationsTeamName: team,
          window: request.window,
        }),
      ],
      { guards: [supplier.guard] },
    );
    return { taskId };
  });
}

/** Operator: cancel the account's scheduled creation that has not run yet. It never runs. */
export async function cancelAccountCreation(ctx: LedgerContext, importSupplier: string, externalAccountNumber: string, actor: Actor): Promise<string> {
  const result = await handle(ctx, actor, accountCreationDecider, accountCreationStreamId(importSupplier, externalAccountNumber), {
    type: 'CancelAccountCreation',
    importSupplier,
    externalAccountNumber,
  });
  const event = result.events[0]?.event;
  return event?.type === 'AccountCreationCancelled' ? event.data.taskId : '';
}

export interface DueCreation {
  readonly importSupplier: string;
  readonly externalAccountNumber: string;
  readonly taskId: string;
  readonly isDryRun: boolean;
  readonly operationsTeamName: string;
}

export type ClaimResult = { readonly kind: 'claimed'; readonly claimId: string } | { readonly kind: 'window_elapsed' };

/**
 * Records that this worker takes the creation, decided under the store's write lock like every command.
 * Throws a DomainError (`account_creation_claimed`, `_not_due`, `_not_scheduled`) or a ConcurrencyError
 * when another worker got there first.
 */
export async function claimAccountCreation(ctx: LedgerContext, due: DueCreation, leaseMs: number, actor: Actor): Promise<ClaimResult> {
  const claimId = ctx.ids.uuid();
  const result = await handle(
    ctx,
    actor,
    accountCreationDecider,
    accountCreationStreamId(due.importSupplier, due.externalAccountNumber),
    (now) => ({
      type: 'ClaimAccountCreation',
      importSupplier: due.importSupplier,
      externalAccountNumber: due.externalAccountNumber,
      taskId: due.taskId,
      claimId,
      leaseExpiresAt: new Date(now.getTime() + leaseMs).toISOString(),
    }),
    { correlationId: due.taskId },
  );
  return result.events[0]?.event.type === 'AccountCreationClaimed' ? { kind: 'claimed', claimId } : { kind: 'window_elapsed' };
}

const claimLost = (error: unknown) =>
  error instanceof DomainError && (error.code === 'account_creation_claim_lost' || error.code === 'account_creation_not_scheduled');

export type RunOutcome = AccountCreationOutcome | 'claim_lost';

/**
 * Runs a claimed creation exactly once: AccountProcessed and the schedule's outcome are one unit, refused
 * unless this claim still holds, so a run whose claim ran out, was cancelled or replaced writes nothing.
 * A dry run is decided in a unit rolled back, then its outcome and dry-run record are one unit. A rule
 * refusing the run ends it ERRORED (DRY_RUN_ERRORED), with the refusal on the account's audit stream.
 */
export async function runClaimedCreation(ctx: LedgerContext, due: DueCreation, claimId: string, actor: Actor): Promise<RunOutcome> {
  const creationStream = accountCreationStreamId(due.importSupplier, due.externalAccountNumber);
  const finish = (outcome: AccountCreationOutcome, platformAccountNumber: string | null, error: DomainError | null) =>
    on(creationStream, accountCreationDecider, {
      type: 'FinishAccountCreation',
      importSupplier: due.importSupplier,
      externalAccountNumber: due.externalAccountNumber,
      taskId: due.taskId,
      claimId,
      outcome,
      platformAccountNumber,
      error: error && { code: error.code, detail: error.detail },
    });
  const correlationId = due.taskId;
  try {
    return await withRetry(async () => {
      const prepared = await prepareProcess(ctx, due);
      const { command } = prepared;
      const outcome = due.isDryRun ? 'DRY_RUN_SUCCEEDED' : 'PROCESSED';
      const unit = [finish(outcome, due.isDryRun ? null : command.platformAccountNumber, null), on(prepared.streamId, accountImportProcessDecider, command)];
      const run = await handleMany(ctx, actor, unit, { correlationId, guards: prepared.guards, dryRun: due.isDryRun });
      if (due.isDryRun) await recordDryRunOutcome(ctx, actor, due, finish(outcome, null, null), { ...prepared, envelope: run.envelope });
      return outcome;
    });
  } catch (error) {
    if (claimLost(error)) return 'claim_lost';
    if (!isRefusal(error)) throw error;
    return recordFailedRun(ctx, actor, due, error, finish);
  }
}

/** The outcome of a rolled-back dry run and its dry-run record, one unit written with the run's time and metadata. */
async function recordDryRunOutcome(
  ctx: LedgerContext,
  actor: Actor,
  due: DueCreation,
  finished: UntimedStreamCommand,
  run: PreparedProcess & { readonly envelope: CommandEnvelope },
): Promise<void> {
  const now = run.envelope.now.toISOString();
  const record = dryRunSucceeded(due, { platformAccountNumber: run.command.platformAccountNumber, now, accountStreamVersion: run.accountStreamVersion });
  const recorded = on(accountProcessDryRunStreamId(due.importSupplier, due.externalAccountNumber), recordDecider, { events: [record] });
  await handleMany(ctx, actor, [finished, recorded], { envelope: run.envelope, guards: run.guards });
}

async function recordFailedRun(
  ctx: LedgerContext,
  actor: Actor,
  due: DueCreation,
  error: DomainError,
  finish: (outcome: AccountCreationOutcome, platformAccountNumber: null, error: DomainError) => UntimedStreamCommand,
): Promise<RunOutcome> {
  const outcome = due.isDryRun ? 'DRY_RUN_ERRORED' : 'ERRORED';
  const ref = { importSupplier: due.importSupplier, externalAccountNumber: due.externalAccountNumber, operation: 'scheduled_run', dryRun: due.isDryRun } as const;
  try {
    await withRetry(async () => {
      const accountStreamVersion = await ctx.store.streamVersion(accountImportProcessStreamId(due.importSupplier, due.externalAccountNumber));
      await handleMany(
        ctx,
        actor,
        [
          finish(outcome, null, error),
          on(refusedAttemptStreamId(due.importSupplier, due.externalAccountNumber), refusedAttemptDecider, refusalCommand(ref, error, accountStreamVersion)),
        ],
        { correlationId: due.taskId },
      );
    });
  } catch (lost) {
    if (claimLost(lost)) return 'claim_lost';
    throw lost;
  }
  return outcome;
}
