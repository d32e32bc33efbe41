import type {
  AccountCreationEvent,
  AccountCreationFinished,
  AccountCreationScheduled,
} from '../../../events/account-creation.js';
import type { LedgerEvent } from '../../../events/registry.js';
import type { Decider } from '../decider.js';
import { assertNever } from '../assert-never.js';
import { accountOf, type AccountRef } from '../account-records/account-stream.js';
import { DomainError } from '../errors.js';
import { checkScheduleWindow, utcInstant, type ScheduleWindow } from './schedule-window.js';

export type AccountCreationCommand =
  | (AccountRef & {
      readonly type: 'ScheduleAccountCreation';
      readonly taskId: string;
      readonly isDryRun: boolean;
      /** The team the request named or the supplier's default, already checked to exist. */
      readonly operationsTeamName: string;
      readonly window: ScheduleWindow;
    })
  | (AccountRef & { readonly type: 'ClaimAccountCreation'; readonly taskId: string; readonly claimId: string; readonly leaseExpiresAt: string })
  | (AccountRef & FinishedResult & { readonly type: 'FinishAccountCreation'; readonly taskId: string; readonly claimId: string })
  | (AccountRef & { readonly type: 'CancelAccountCreation' });

/** What a finished run records. */
type FinishedResult = Pick<AccountCreationFinished['data'], 'outcome' | 'platformAccountNumber' | 'error'>;

type Schedule = Omit<AccountCreationScheduled['data'], 'importSupplier' | 'externalAccountNumber' | 'scheduledAt'>;

/** The latest schedule of the account: none, waiting for its window, claimed by a worker, or over. */
export type AccountCreationState =
  | { readonly status: 'none' }
  | { readonly status: 'pending'; readonly schedule: Schedule }
  | { readonly status: 'claimed'; readonly schedule: Schedule; readonly claimId: string; readonly leaseExpiresAt: string }
  | { readonly status: 'over'; readonly schedule: Schedule };

const before = (a: string, b: string): boolean => Date.parse(a) < Date.parse(b);

export function evolveAccountCreation(state: AccountCreationState, event: LedgerEvent): AccountCreationState {
  switch (event.type) {
    case 'AccountCreationScheduled': {
      const { taskId, isDryRun, operationsTeamName, windowStart, windowEnd } = event.data;
      return { status: 'pending', schedule: { taskId, isDryRun, operationsTeamName, windowStart, windowEnd } };
    }
    case 'AccountCreationClaimed':
      return state.status === 'none' ? state : { status: 'claimed', schedule: state.schedule, claimId: event.data.claimId, leaseExpiresAt: event.data.leaseExpiresAt };
    case 'AccountCreationFinished':
    case 'AccountCreationCancelled':
      return state.status === 'none' ? state : { status: 'over', schedule: state.schedule };
    default:
      return state;
  }
}

function schedule(command: Extract<AccountCreationCommand, { type: 'ScheduleAccountCreation' }>): AccountCreationEvent[] {
  checkScheduleWindow(command.window, command.now);
  // A schedule that has not run yet (or is running) is replaced: its claim, if any, no longer finishes.
  return [
    {
      type: 'AccountCreationScheduled',
      version: 1,
      data: {
        ...accountOf(command),
        taskId: command.taskId,
        isDryRun: command.isDryRun,
        operationsTeamName: command.operationsTeamName,
        windowStart: command.window.start === null ? null : utcInstant(command.window.start),
        windowEnd: command.window.end === null ? null : utcInstant(command.window.end),
        scheduledAt: command.now,
      },
    },
  ];
}

function live(state: AccountCreationState, taskId: string): Extract<AccountCreationState, { status: 'pending' | 'claimed' }> {
  if ((state.status === 'pending' || state.status === 'claimed') && state.schedule.taskId === taskId) return state;
  throw new DomainError('account_creation_not_scheduled', `Scheduled creation ${taskId} is no longer waiting to run.`);
}

function finished(command: AccountRef & { readonly taskId: string }, result: FinishedResult): AccountCreationEvent[] {
  return [{ type: 'AccountCreationFinished', version: 1, data: { ...accountOf(command), taskId: command.taskId, ...result, finishedAt: command.now } }];
}

function claim(command: Extract<AccountCreationCommand, { type: 'ClaimAccountCreation' }>, state: AccountCreationState): AccountCreationEvent[] {
  const current = live(state, command.taskId);
  if (current.status === 'claimed' && before(command.now, current.leaseExpiresAt)) {
    throw new DomainError('account_creation_claimed', `Scheduled creation ${command.taskId} is being run by another worker.`);
  }
  const { windowStart, windowEnd, isDryRun } = current.schedule;
  if (windowStart !== null && before(command.now, windowStart)) {
    throw new DomainError('account_creation_not_due', `Scheduled creation ${command.taskId} is not due before ${windowStart}.`);
  }
  if (windowEnd !== null && before(windowEnd, command.now)) {
    // The window closed before any worker could run it (the service was down): it does not run late.
    const error = { code: 'schedule_window_elapsed', detail: `The schedule window ended at ${windowEnd} before the creation could run.` };
    return finished(command, { outcome: isDryRun ? 'DRY_RUN_ERRORED' : 'ERRORED', platformAccountNumber: null, error });
  }
  return [{ type: 'AccountCreationClaimed', version: 1, data: { ...accountOf(command), taskId: command.taskId, claimId: command.claimId, claimedAt: command.now, leaseExpiresAt: command.leaseExpiresAt } }];
}

function finish(command: Extract<AccountCreationCommand, { type: 'FinishAccountCreation' }>, state: AccountCreationState): AccountCreationEvent[] {
  const current = live(state, command.taskId);
  if (current.status !== 'claimed' || current.claimId !== command.claimId) {
    throw new DomainError('account_creation_claim_lost', `Claim ${command.claimId} no longer holds scheduled creation ${command.taskId}.`);
  }
  return finished(command, { outcome: command.outcome, platformAccountNumber: command.platformAccountNumber, error: command.error });
}

function cancel(command: Extract<AccountCreationCommand, { type: 'CancelAccountCreation' }>, state: AccountCreationState): AccountCreationEvent[] {
  if (state.status !== 'pending' && state.status !== 'claimed') {
    throw new DomainError(
      'account_creation_not_scheduled',
      `No creation of ${command.externalAccountNumber} is waiting to run: nothing to cancel.`,
    );
  }
  // A run in flight loses its claim: its outcome is refused and its transaction, the account's creation included, rolls back.
  return [
    {
      type: 'AccountCreationCancelled',
      version: 1,
      data: {
        ...accountOf(command),
        taskId: state.schedule.taskId,
        cancelledAt: command.now,
      },
    },
  ];
}

function decide(command: AccountCreationCommand, state: AccountCreationState): AccountCreationEvent[] {
  switch (command.type) {
    case 'ScheduleAccountCreation':
      return schedule(command);
    case 'ClaimAccountCreation':
      return claim(command, state);
    case 'FinishAccountCreation':
      return finish(command, state);
    case 'CancelAccountCreation':
      return cancel(command, state);
    default:
      return assertNever(command);
  }
}

export const accountCreationDecider: Decider<AccountCreationCommand, LedgerEvent, AccountCreationEvent, AccountCreationState> = {
  decide,
  evolve: evolveAccountCreation,
  initialState: { status: 'none' },
};
