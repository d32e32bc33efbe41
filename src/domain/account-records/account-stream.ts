import type { AccountProcessed, AccountRestaged, AccountStaged } from '../../../events/account-import-process.js';
import type { DomainEvent } from '../../../events/envelope.js';
import type { ImportSupplierStatus } from '../../../events/import-supplier.js';
import { assertNever } from '../assert-never.js';
import { ownedEvolution } from '../decider.js';
import { DomainError } from '../errors.js';

/** The account a command or an event is about, and the command's time. */
export interface AccountRef {
  readonly importSupplier: string;
  readonly externalAccountNumber: string;
  /** ISO timestamp from the injected clock. */
  readonly now: string;
}

/** The account an event records: the ref without the command's time. */
export const accountOf = (ref: { readonly importSupplier: string; readonly externalAccountNumber: string }) => ({
  importSupplier: ref.importSupplier,
  externalAccountNumber: ref.externalAccountNumber,
});

/** What every post-import decider needs to know about the account itself. */
export interface AccountFacts {
  readonly status: 'none' | 'staged' | 'imported';
  /** The staged payload's `last_billed_to_date` (the payload that was processed), or null. */
  readonly lastBilledToDate: string | null;
}

export const initialAccountFacts: AccountFacts = { status: 'none', lastBilledToDate: null };

/** The state of a post-import decider: the account's facts, and `R`, the records it folds. */
export type AccountRecordsState<R> = { readonly account: AccountFacts } & R;

type AccountFactsEvent = AccountStaged | AccountRestaged | AccountProcessed;

const accountFactsTypes = new Set<string>(['AccountStaged', 'AccountRestaged', 'AccountProcessed'] satisfies AccountFactsEvent['type'][]);

const LAST_BILLED_TO_DATE = 'last_billed_to_date';
/** The keys of the staged payload `evolveAccountFacts` reads: the only ones a post-import decider folds. */
const ACCOUNT_FACTS_PAYLOAD_KEYS: readonly string[] = [LAST_BILLED_TO_DATE];

/** Skipping needs no case: a skipped account never gets an AccountProcessed, so it stays "not imported". */
function evolveAccountFacts(facts: AccountFacts, event: AccountFactsEvent): AccountFacts {
  switch (event.type) {
    case 'AccountStaged':
    case 'AccountRestaged': {
      const lastBilled = event.data.payload[LAST_BILLED_TO_DATE];
      return { status: 'staged', lastBilledToDate: typeof lastBilled === 'string' ? lastBilled : null };
    }
    case 'AccountProcessed':
      return facts.status === 'staged' ? { ...facts, status: 'imported' } : facts;
    default:
      return assertNever(event);
  }
}

/**
 * `evolve` and `fold` of a post-import decider (notes, the ledger, statements), which decides on the account
 * stream: the account's own events update `account`; `steps`, one per record type the decider folds (`F`),
 * record it in a state the fold owns (see `ownedEvolution`): `own` copies the state with its record fields
 * (`R`) made changeable in place, so the stream folds in linear time however many records it holds. Any
 * other event leaves the state as it is.
 */
export function accountRecordsEvolution<S extends { readonly account: AccountFacts }, F extends DomainEvent, R>(
  own: (state: S) => S & R & { account: AccountFacts },
  steps: { readonly [K in F['type']]: (owned: S & R, event: Extract<F, { type: K }>) => void },
): {
  evolve(state: S, event: DomainEvent): S;
  fold(state: S, events: readonly DomainEvent[]): S;
  readonly payloadKeysFolded: readonly string[];
  readonly eventTypesFolded: readonly string[];
} {
  type D = S & R & { account: AccountFacts };
  const folded: ReadonlySet<string> = new Set([...accountFactsTypes, ...Object.keys(steps)]);
  const evolution = ownedEvolution<S, DomainEvent, D>({
    own,
    step: (owned, event) => {
      if (accountFactsTypes.has(event.type)) owned.account = evolveAccountFacts(owned.account, event as AccountFactsEvent);
      else (steps[event.type as F['type']] as (owned: D, event: DomainEvent) => void)(owned, event);
      return owned;
    },
    folds: (event) => folded.has(event.type),
  });
  return { ...evolution, payloadKeysFolded: ACCOUNT_FACTS_PAYLOAD_KEYS, eventTypesFolded: [...folded] };
}

/** Facts every post-import command carries. */
export interface AccountRecordCommandBase extends AccountRef {
  /** Fact: the supplier's status when the command was built (guarded by the supplier stream version); null when it does not exist. */
  readonly supplierStatus: ImportSupplierStatus | null;
}

export const supplierNotOngoing = (importSupplier: string, status: ImportSupplierStatus) =>
  new DomainError('import_supplier_migration_not_ongoing', `The migration for import supplier ${importSupplier} is ${status}, not Ongoing.`);

/**
 * The rules every post-import command starts with: the account is imported (not merely staged; an unknown
 * account or supplier is the same 404), then the supplier's migration is Ongoing.
 */
export function requireImportedAccount(facts: AccountFacts, command: AccountRecordCommandBase): void {
  if (facts.status !== 'imported' || command.supplierStatus === null) {
    throw new DomainError(
      'account_not_found',
      `No imported account ${command.externalAccountNumber} was found for import supplier ${command.importSupplier}.`,
    );
  }
  if (command.supplierStatus !== 'Ongoing') throw supplierNotOngoing(command.importSupplier, command.supplierStatus);
}
