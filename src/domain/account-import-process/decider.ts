import type { AccountImportProcessEvent, TransferStatus } from '../../../events/account-import-process.js';
import type { CustomerWelcomeEmailQueued } from '../../../events/customer-email.js';
import type { LedgerEvent } from '../../../events/registry.js';
import type { AccountRecordsImported } from '../../../events/staged-account-records.js';
import type { Decider } from '../decider.js';
import { assertNever } from '../assert-never.js';
import { welcomeEmailsQueued } from '../customer-email/welcome-emails.js';
import { DomainError, type FieldError } from '../errors.js';
import { accountRecordsImported } from '../staged-account-records/records-imported.js';
import { accountOf, supplierNotOngoing } from '../account-records/account-stream.js';
import { stagedPayloadRecords, type StagedRecordEvent } from '../account-records/staged-records.js';
import { validateAccountPayload } from './account-payload.js';
import type {
  AccountImportProcessCommand,
  ChangeTransferStatus,
  MarkAccountToSkip,
  ProcessAccount,
  StageAccount,
} from './commands.js';
import { evolveAccountImportProcess, initialAccountImportProcessState, type AccountImportProcessState } from './state.js';

/** Lifecycle events and, on process, the records the staged payload brings, appended after AccountProcessed. */
export type AccountImportProcessEmitted = AccountImportProcessEvent | StagedRecordEvent | AccountRecordsImported | CustomerWelcomeEmailQueued;
type Events = AccountImportProcessEmitted[];

/** The allowed moves of the transfer status (spec 3.1 leaves them open). */
export const transferStatusTransitions: Readonly<Record<TransferStatus, readonly TransferStatus[]>> = {
  UNKNOWN: [],
  PENDING: ['IN_PROGRESS'],
  IN_PROGRESS: ['COMPLETED', 'REJECTED'],
  REJECTED: ['IN_PROGRESS'],
  COMPLETED: [],
};

/** Stage or process of an imported account: the body carries the platform's AccountAlreadyImportedResponse fields too. */
export function alreadyImported(externalAccountNumber: string, platformAccountNumber: string): DomainError {
  const detail = `The account import process with the account number ${externalAccountNumber} has already been imported.`;
  return new DomainError('account_import_process_already_imported', detail, {
    extra: { external_account_number: externalAccountNumber, platform_account_number: platformAccountNumber, non_field_errors: [detail] },
  });
}

/** The answer to a process dry run that passed every check: the run was rolled back (spec 4.8). */
export const dryRunRolledBack = () => new DomainError('dry_run_rollback', 'Account would successfully import. Rolled back due to Dry Run.');

export const accountFailedValidation = (errors: readonly FieldError[]) =>
  new DomainError('account_failed_validation', 'Account data could not be validated.', { errors });

const markedToSkip = (ext: string) =>
  new DomainError('account_marked_to_skip', `The account import process ${ext} has been marked to be skipped.`);

const processDoesNotExist = (ext: string) =>
  new DomainError('import_process_does_not_exist', `No account data has been staged for ${ext}.`);

function stage(command: StageAccount, state: AccountImportProcessState): Events {
  if (state.status === 'imported') throw alreadyImported(command.externalAccountNumber, state.platformAccountNumber);
  if (state.status === 'skipped') throw markedToSkip(command.externalAccountNumber);
  if (command.supplierStatus !== 'Ongoing') throw supplierNotOngoing(command.importSupplier, command.supplierStatus);
  const data = {
    ...accountOf(command),
    payload: command.payload as Record<string, unknown>,
    stagedAt: command.now,
  };
  return [state.status === 'none' ? { type: 'AccountStaged', version: 1, data } : { type: 'AccountRestaged', version: 1, data }];
}

function processAccount(command: ProcessAccount, state: AccountImportProcessState): Events {
  if (state.status === 'none') throw processDoesNotExist(command.externalAccountNumber);
  if (state.status === 'imported') throw alreadyImported(command.externalAccountNumber, state.platformAccountNumber);
  if (state.status === 'skipped') throw markedToSkip(command.externalAccountNumber);
  if (command.supplierStatus !== 'Ongoing') throw supplierNotOngoing(command.importSupplier, command.supplierStatus);
  if (command.operationsTeamName === null) {
    throw new DomainError(
      'operations_team_should_be_provided',
      `No operations team was given and import supplier ${command.importSupplier} has no default team.`,
      { attr: 'operations_team_name' },
    );
  }
  if (!command.operationsTeamExists) {
    throw new DomainError('operations_team_name_does_not_exist', `Operations team ${command.operationsTeamName} does not exist.`, {
      attr: 'operations_team_name',
    });
  }
  // Rules may have tightened since staging: the staged data must still validate and what it names must exist.
  const validation = command.stagedValidation ?? validateAccountPayload(state.payload);
  if (!validation.ok) throw accountFailedValidation(validation.errors);
  if (command.referenceErrors.length > 0) throw accountFailedValidation(command.referenceErrors);
  return [
    {
      type: 'AccountProcessed',
      version: 1,
      data: {
        ...accountOf(command),
        platformAccountNumber: command.platformAccountNumber,
        operationsTeamName: command.operationsTeamName,
        processedAt: command.now,
        ...(command.businessContract
          ? {
              businessContractIdentifier: command.businessContract.identifier,
              platformBusinessId: command.businessContract.platformBusinessId,
            }
          : {}),
      },
    },
    // The payload's notes and statements (docs/account-records.md).
    ...stagedPayloadRecords(validation.data, command),
    // The payload's other records, then the welcome-email outbox (docs/payment-instructions-and-emails.md).
    ...accountRecordsImported(command, validation.data),
    ...welcomeEmailsQueued(command, validation.data, command.sendEmails ?? false),
  ];
}

function markToSkip(command: MarkAccountToSkip, state: AccountImportProcessState): Events {
  if (state.status === 'none') throw processDoesNotExist(command.externalAccountNumber);
  if (state.status === 'imported') throw alreadyImported(command.externalAccountNumber, state.platformAccountNumber);
  if (state.status === 'skipped') return [];
  return [
    {
      type: 'AccountMarkedToSkip',
      version: 1,
      data: { ...accountOf(command), markedAt: command.now },
    },
  ];
}

function changeTransferStatus(command: ChangeTransferStatus, state: AccountImportProcessState): Events {
  if (state.status !== 'imported') {
    throw new DomainError('account_not_imported', `Account ${command.externalAccountNumber} has not been imported: its transfer status is UNKNOWN.`);
  }
  const allowed = transferStatusTransitions[state.transferStatus];
  if (!allowed.includes(command.to)) {
    const detail = `Transfer status cannot move from ${state.transferStatus} to ${command.to}; allowed: ${allowed.join(', ') || 'none'}.`;
    throw new DomainError('invalid_transfer_status_transition', detail);
  }
  const data = { ...accountOf(command), from: state.transferStatus, to: command.to, changedAt: command.now };
  return [{ type: 'AccountTransferStatusChanged', version: 1, data }];
}

function decide(command: AccountImportProcessCommand, state: AccountImportProcessState): Events {
  switch (command.type) {
    case 'StageAccount':
      return stage(command, state);
    case 'ProcessAccount':
      return processAccount(command, state);
    case 'MarkAccountToSkip':
      return markToSkip(command, state);
    case 'ChangeTransferStatus':
      return changeTransferStatus(command, state);
    default:
      return assertNever(command);
  }
}

export const accountImportProcessDecider: Decider<AccountImportProcessCommand, LedgerEvent, AccountImportProcessEmitted, AccountImportProcessState> = {
  decide,
  evolve: evolveAccountImportProcess,
  initialState: initialAccountImportProcessState,
};
