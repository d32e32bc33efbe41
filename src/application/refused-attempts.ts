import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { refusedAttemptStreamId, type ImportAttemptOperation } from '../../events/import-attempt.js';
import { bodyErrorCodes, idempotencyErrorCodes, type ErrorCode } from '../domain/error-codes.js';
import { DomainError } from '../domain/errors.js';
import { refusedAttemptDecider, type RecordRefusedAttempt } from '../domain/import-attempt/decider.js';
import { handle, type Untimed } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';

export interface AttemptRef {
  readonly importSupplier: string;
  readonly externalAccountNumber: string;
  readonly operation: ImportAttemptOperation;
  readonly dryRun: boolean;
}

/**
 * Codes that are no rule of the account: who the caller is and what it may see (so a key cannot write into
 * another supplier's audit), the transport, and the store or a payment vendor asking for a retry. A
 * denylist, so a rule added later is recorded without anyone remembering this file.
 */
const notARefusal: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'not_authenticated',
  'authentication_failed',
  'permission_denied',
  'throttled',
  'concurrency_conflict',
  'store_unavailable',
  'payment_vendor_unavailable',
  'internal_error',
  ...bodyErrorCodes,
  ...idempotencyErrorCodes,
  // A successful dry run is answered 400 but is no refusal: it has its own record.
  'dry_run_rollback',
]);

export const isRefusal = (error: unknown): error is DomainError => error instanceof DomainError && !notARefusal.has(error.code);

/** The refusal command for `error`: its codes and paths, never its items' details (they may quote the payload). */
export function refusalCommand(ref: AttemptRef, error: DomainError, accountStreamVersion: number): Untimed<RecordRefusedAttempt> {
  return {
    type: 'RecordRefusedAttempt',
    ...ref,
    code: error.code,
    detail: error.detail,
    errors: error.errors.map((item) => ({ code: item.code, attr: item.attr })),
    accountStreamVersion,
  };
}

/**
 * Appends the fact that an attempt was refused to the account's audit stream, in a unit of its own once the
 * refused unit rolled back and before the refusal is answered, so every answered refusal has its fact. Not
 * with the request's Idempotency-Key hook: the fact is not the request's effect, and a replay of the stored
 * refusal must not be mistaken for one rebuilt from events.
 */
export async function recordRefusedAttempt(ctx: LedgerContext, ref: AttemptRef, error: DomainError, actor: Actor): Promise<void> {
  const streamId = refusedAttemptStreamId(ref.importSupplier, ref.externalAccountNumber);
  const { beforeCommit: _requestHook, ...withoutRequestHook } = actor;
  await withRetry(async () => {
    const accountStreamVersion = await ctx.store.streamVersion(accountImportProcessStreamId(ref.importSupplier, ref.externalAccountNumber));
    await handle(ctx, withoutRequestHook, refusedAttemptDecider, streamId, refusalCommand(ref, error, accountStreamVersion));
  });
}
