import type { AccountProcessed, AccountRestaged, AccountStaged } from '../../../events/account-import-process.js';
import type { DomainEvent } from '../../../events/envelope.js';
import type { ImportSupplierStatus } from '../../../events/import-supplier.js';
import { assertNever } from '../assert-never.js';
import { ownedEvolution } from '../decider.js';
import { DomainError } from '../errors.js';

/**
 * Several deciders decide on the account import process stream (the account
 * lifecycle, notes, the ledger, statements, payment instructions); each folds
 * only the event types it needs.
 *
 * Lifts an evolve over the event types a decider needs (`F`, listed
 * exhaustively in `types`: the compiler insists on every member of `F` and no
 * other) to one over a whole stream: any other event leaves the state as it is.
 * The decider's own switch stays exhaustive over `F`.
 */
export function foldingOnly<S, F extends DomainEvent>(
  types: { readonly [K in F['type']]: true },
  evolve: (state: S, event: F) => S,
): <E extends DomainEvent>(state: S, event: E) => S {
  const known = new Set<string>(Object.keys(types));
  return (state, event) => (known.has(event.type) ? evolve(state, event as unknown as F) : state);
}

/**
 * As `foldingOnly`, for a decider whose state holds collections: its `step`
 * works on a state the fold owns (see `ownedEvolution`), so the account
 * stream folds in linear time however many transactions or notes it holds.
 */
export function foldingOnlyOwned<S, F extends DomainEvent, D extends S>(
  types: { readonly [K in F['type']]: true },
  own: (state: S) => D,
  step: (owned: D, event: F) => D,
): { evolve(state: S, event: DomainEvent): S; fold(state: S, events: readonly DomainEvent[]): S } {
  const known = new Set<string>(Object.keys(types));
  return ownedEvolution<S, DomainEvent, D>({ own, step: (owned, event) => step(owned, event as F), folds: (event) => known.has(event.type) });
}

/** What every post-import decider needs to know about the account itself. */
export interface AccountFacts {
  readonly status: 'none' | 'staged' | 'imported';
  /** The staged payload's `last_billed_to_date` (the payload that was processed), or null. */
  readonly lastBilledToDate: string | null;
}

export const initialAccountFacts: AccountFacts = { status: 'none', lastBilledToDate: null };

export type AccountFactsEvent = AccountStaged | AccountRestaged | AccountProcessed;

/** Skipping needs no case: a skipped account never gets an AccountProcessed, so it stays "not imported". */
export function evolveAccountFacts(facts: AccountFacts, event: AccountFactsEvent): AccountFacts {
  switch (event.type) {
    case 'AccountStaged':
    case 'AccountRestaged': {
      const lastBilled = event.data.payload['last_billed_to_date'];
      return { status: 'staged', lastBilledToDate: typeof lastBilled === 'string' ? lastBilled : null };
    }
    case 'AccountProcessed':
      return facts.status === 'staged' ? { ...facts, status: 'imported' } : facts;
    default:
      return assertNever(event);
  }
}

/** Facts every post-import command carries. */
export interface AccountRecordCommandBase {
  readonly importSupplier: string;
  readonly externalAccountNumber: string;
  /** Fact: the supplier's status when the command was built (guarded by the supplier stream version); null when it does not exist. */
  readonly supplierStatus: ImportSupplierStatus | null;
  /** ISO timestamp from the injected clock. */
  readonly now: string;
}

export function accountNotFound(importSupplier: string, externalAccountNumber: string): DomainError {
  return new DomainError(
    'account_not_found',
    `No imported account ${externalAccountNumber} was found for import supplier ${importSupplier}.`,
  );
}

/**
 * The rules every post-import command starts with: the account must be
 * imported (not merely staged; an unknown account or supplier is the same 404),
 * then the supplier's migration must be Ongoing.
 */
export function requireImportedAccount(facts: AccountFacts, command: AccountRecordCommandBase): void {
  if (facts.status !== 'imported' || command.supplierStatus === null) {
    throw accountNotFound(command.importSupplier, command.externalAccountNumber);
  }
  if (command.supplierStatus !== 'Ongoing') {
    throw new DomainError(
      'import_supplier_migration_not_ongoing',
      `The migration for import supplier ${command.importSupplier} is ${command.supplierStatus}, not Ongoing.`,
    );
  }
}
