import { accountImportProcessStreamId, type TransferStatus } from '../../events/account-import-process.js';
import { accountProcessDryRunStreamId, type AccountProcessDryRunSucceeded, type TransactionsDryRunSucceeded } from '../../events/account-process-dry-run.js';
import { importSupplierStreamId } from '../../events/import-supplier.js';
import { validateAccountPayload, type AccountPayload } from '../domain/account-import-process/account-payload.js';
import { accountFailedValidation, accountImportProcessDecider } from '../domain/account-import-process/decider.js';
import { DomainError, type FieldError } from '../domain/errors.js';
import { fold } from '../domain/decider.js';
import { checkAccountReferences, findNamedBusinessContract } from './account-references.js';
import { recordDecider } from '../domain/import-attempt/decider.js';
import { handle, type CommandEnvelope, type Untimed } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';
import type { StreamGuard } from '../store/event-store.js';
import type { ProcessAccount } from '../domain/account-import-process/commands.js';

/** The supplier a command is decided on, and the guard on its stream. */
export async function supplierFact(ctx: LedgerContext, code: string) {
  const supplier = await ctx.read.findImportSupplier(code);
  if (!supplier) {
    throw new DomainError('import_supplier_not_found', `Import supplier ${code} does not exist.`, { attr: 'import_supplier' });
  }
  return {
    status: supplier.status,
    sendEmails: supplier.sendEmails,
    defaultOperationsTeamName: supplier.defaultOperationsTeamName,
    guard: { streamId: importSupplierStreamId(code), expectedVersion: supplier.streamVersion },
  };
}

/** validate-account/ (and the first step of stage): a reference of the payload that does not exist refuses it with `failed`. */
export async function validateAccount(
  ctx: LedgerContext,
  payload: AccountPayload,
  failed: (errors: readonly FieldError[]) => DomainError = accountFailedValidation,
): Promise<AccountPayload> {
  const referenceErrors = await checkAccountReferences(ctx.read, payload);
  if (referenceErrors.length > 0) throw failed(referenceErrors);
  return payload;
}

/** Stage (create or update) account data that passed its payload rules, once its references are checked. Returns whether this was the first staging. */
export async function stageAccount(ctx: LedgerContext, payload: AccountPayload, actor: Actor): Promise<{ created: boolean }> {
  await validateAccount(ctx, payload);
  return withRetry(async () => {
    const supplier = await supplierFact(ctx, payload.import_supplier);
    const result = await handle(
      ctx,
      actor,
      accountImportProcessDecider,
      accountImportProcessStreamId(payload.import_supplier, payload.external_account_number),
      {
        type: 'StageAccount',
        importSupplier: payload.import_supplier,
        externalAccountNumber: payload.external_account_number,
        payload,
        supplierStatus: supplier.status,
      },
      { guards: [supplier.guard] },
    );
    return { created: result.events.some((stored) => stored.event.type === 'AccountStaged') };
  });
}

export interface ProcessAccountRequest {
  readonly importSupplier: string;
  readonly externalAccountNumber: string;
  /** The team named in the request; null takes the supplier's default team (`supplier set-config --default-team`). */
  readonly operationsTeamName: string | null;
  readonly dryRun: boolean;
}

/** Creates the platform account from the staged data. A dry run runs exactly as a real one, rolls back, and is recorded on its own audit stream. */
export async function processAccount(
  ctx: LedgerContext,
  request: ProcessAccountRequest,
  actor: Actor,
): Promise<{ platformAccountNumber: string; dryRun: boolean }> {
  const run = await withRetry(async () => {
    const prepared = await prepareProcess(ctx, request);
    const { envelope } = await handle(ctx, actor, accountImportProcessDecider, prepared.streamId, prepared.command, {
      guards: prepared.guards,
      dryRun: request.dryRun,
    });
    return {
      platformAccountNumber: prepared.command.platformAccountNumber,
      operationsTeamName: prepared.command.operationsTeamName ?? '',
      envelope,
      accountStreamVersion: prepared.accountStreamVersion,
    };
  });
  if (request.dryRun) {
    const event = dryRunSucceeded({ ...request, operationsTeamName: run.operationsTeamName }, { ...run, now: run.envelope.now.toISOString() });
    await appendDryRunRecord(ctx, actor, event, run.envelope);
  }
  return { platformAccountNumber: run.platformAccountNumber, dryRun: request.dryRun };
}

/** A process command with the facts it is decided on, and the guards that keep those facts current. */
export interface PreparedProcess {
  readonly streamId: string;
  readonly command: Untimed<ProcessAccount>;
  readonly guards: readonly StreamGuard[];
  readonly accountStreamVersion: number;
}

/**
 * Reads what a process is decided on (the supplier, the team, what the staged payload refers to) before
 * the transaction, with the guards that fail the write (to be retried afresh) if any of it moved on.
 * Shared by the v1 endpoint and the v2 scheduler.
 */
export async function prepareProcess(
  ctx: LedgerContext,
  request: Omit<ProcessAccountRequest, 'dryRun'>,
): Promise<PreparedProcess> {
  const streamId = accountImportProcessStreamId(request.importSupplier, request.externalAccountNumber);
  const supplier = await supplierFact(ctx, request.importSupplier);
  const platformAccountNumber = ctx.ids.platformAccountNumber();
  // The team named, else the supplier's default (guarded below with the supplier), else none: the decider refuses.
  const team = request.operationsTeamName ?? supplier.defaultOperationsTeamName;
  // The guard on the account stream makes sure the payload checked here is the one processed.
  const history = await ctx.store.readStream(streamId);
  const state = fold(accountImportProcessDecider, history.map((stored) => stored.event));
  const staged = state.status === 'none' ? null : validateAccountPayload(state.payload);
  const referenceErrors = staged?.ok ? await checkAccountReferences(ctx.read, staged.data) : [];
  const contract = staged?.ok ? await findNamedBusinessContract(ctx.read, staged.data) : null;
  return {
    streamId,
    command: {
      type: 'ProcessAccount',
      importSupplier: request.importSupplier,
      externalAccountNumber: request.externalAccountNumber,
      operationsTeamName: team,
      operationsTeamExists: team !== null && (await ctx.read.operationsTeamExists(team)),
      supplierStatus: supplier.status,
      referenceErrors,
      businessContract: contract && { identifier: contract.contractIdentifier, platformBusinessId: contract.platformBusinessId },
      // Guarded below by the account stream's version: decide sees this payload, validated once.
      ...(staged ? { stagedValidation: staged } : {}),
      platformAccountNumber,
      sendEmails: supplier.sendEmails,
    },
    guards: [supplier.guard, { streamId, expectedVersion: history.length }],
    accountStreamVersion: history.length,
  };
}

/**
 * Appends a dry run's record to the account's dry-run audit stream, in a unit of its own once the run
 * rolled back, with the run's metadata; under an Idempotency-Key it is the event the key is recorded with.
 * A concurrent dry run of the account appending in between is a ConcurrencyError, retried.
 */
export async function appendDryRunRecord(
  ctx: LedgerContext,
  actor: Actor,
  event: AccountProcessDryRunSucceeded | TransactionsDryRunSucceeded,
  envelope: CommandEnvelope,
): Promise<void> {
  const streamId = accountProcessDryRunStreamId(event.data.importSupplier, event.data.externalAccountNumber);
  await withRetry(() => handle(ctx, actor, recordDecider, streamId, { events: [event] }, { envelope }));
}

/** The record of a successful dry run (its audit stream: `accountProcessDryRunStreamId`). */
export function dryRunSucceeded(
  request: { importSupplier: string; externalAccountNumber: string; operationsTeamName: string },
  run: { platformAccountNumber: string; now: string; accountStreamVersion: number },
): AccountProcessDryRunSucceeded {
  return {
    type: 'AccountProcessDryRunSucceeded',
    version: 1,
    data: {
      importSupplier: request.importSupplier,
      externalAccountNumber: request.externalAccountNumber,
      operationsTeamName: request.operationsTeamName,
      platformAccountNumber: run.platformAccountNumber,
      accountStreamVersion: run.accountStreamVersion,
      ranAt: run.now,
    },
  };
}

/** Operator: mark a staged account to be skipped. Returns false when it already was. */
export async function markAccountToSkip(
  ctx: LedgerContext,
  importSupplier: string,
  externalAccountNumber: string,
  actor: Actor,
): Promise<boolean> {
  const result = await handle(ctx, actor, accountImportProcessDecider, accountImportProcessStreamId(importSupplier, externalAccountNumber), {
    type: 'MarkAccountToSkip',
    importSupplier,
    externalAccountNumber,
  });
  return result.events.length > 0;
}

/** Operator: move the transfer status of an imported account along its allowed transitions. */
export async function changeTransferStatus(
  ctx: LedgerContext,
  importSupplier: string,
  externalAccountNumber: string,
  to: TransferStatus,
  actor: Actor,
): Promise<void> {
  await handle(ctx, actor, accountImportProcessDecider, accountImportProcessStreamId(importSupplier, externalAccountNumber), {
    type: 'ChangeTransferStatus',
    importSupplier,
    externalAccountNumber,
    to,
  });
}
