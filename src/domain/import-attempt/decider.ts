import type { AccountImportAttemptRefused } from '../../../events/import-attempt.js';
import type { LedgerEvent } from '../../../events/registry.js';
import type { Decider } from '../decider.js';

/**
 * Record that a stage, process or record import of the account was refused (never throws: recording a
 * refusal is not refused): its `errors` are the items' codes and paths only, since their details may quote
 * the payload; `accountStreamVersion` is a fact, the version of the account's import-process stream it was
 * refused on.
 */
export type RecordRefusedAttempt = Omit<AccountImportAttemptRefused['data'], 'refusedAt'> & { readonly type: 'RecordRefusedAttempt'; readonly now: string };

/** What makes two refusals "the same": everything but the time and the wording. */
export interface RefusedAttemptState {
  readonly lastFingerprint: string | null;
}

function refusalFingerprint(data: Omit<RecordRefusedAttempt, 'type' | 'now' | 'detail' | 'importSupplier' | 'externalAccountNumber'>): string {
  return JSON.stringify([data.operation, data.dryRun, data.code, data.errors.map((e) => [e.code, e.attr]), data.accountStreamVersion]);
}

function evolve(state: RefusedAttemptState, event: LedgerEvent): RefusedAttemptState {
  return event.type === 'AccountImportAttemptRefused' ? { lastFingerprint: refusalFingerprint(event.data) } : state;
}

/**
 * Appends the refusal unless the stream's last one is the same: a client retrying a broken request in a loop
 * leaves one fact, not thousands. Anything different in between makes the next one a new fact.
 */
function decide(command: RecordRefusedAttempt, state: RefusedAttemptState): AccountImportAttemptRefused[] {
  const data = {
    importSupplier: command.importSupplier,
    externalAccountNumber: command.externalAccountNumber,
    operation: command.operation,
    dryRun: command.dryRun,
    code: command.code,
    detail: command.detail,
    errors: command.errors.map((e) => ({ code: e.code, attr: e.attr })),
    accountStreamVersion: command.accountStreamVersion,
    refusedAt: command.now,
  };
  if (state.lastFingerprint === refusalFingerprint(data)) return [];
  return [{ type: 'AccountImportAttemptRefused', version: 1, data }];
}

export const refusedAttemptDecider: Decider<RecordRefusedAttempt, LedgerEvent, AccountImportAttemptRefused, RefusedAttemptState> = {
  decide,
  evolve,
  initialState: { lastFingerprint: null },
};

/** Appends the events it is given: an audit record decided elsewhere (a dry run's), written through the one handler. */
export const recordDecider: Decider<{ readonly events: readonly LedgerEvent[]; readonly now: string }, LedgerEvent, LedgerEvent, null> = {
  decide: ({ events }) => events,
  evolve: () => null,
  initialState: null,
};
