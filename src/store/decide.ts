import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import { fold, type Decider } from '../domain/decider.js';
import type { HandleResult, StoredLedgerEvent } from './event-store.js';

/** One command decided on its stream's history: the store appends `events` at `expectedVersion`, then builds the result. */
export interface Decision<Eo extends LedgerEvent, S> {
  readonly expectedVersion: number;
  readonly events: readonly Eo[];
  result(stored: readonly StoredLedgerEvent[]): HandleResult<Eo, S>;
}

/** A decider's state of a stream as at `version` (its first `version` events folded). */
export interface StreamSnapshot<S> {
  readonly version: number;
  readonly state: S;
}

/**
 * `history` is the stream's events after `from` (the whole stream without one): a store with a snapshot folds
 * only what came since. `version` is the stream's: a store that read only the types the decider folds
 * (`eventTypesFolded`) gives it; else it is `from`'s and the history's.
 */
export function decideOnStream<C, Ei extends LedgerEvent, Eo extends Ei, S>(
  decider: Decider<C, Ei, Eo, S>,
  history: readonly Pick<StoredLedgerEvent, 'event'>[],
  command: C,
  from: StreamSnapshot<S> = { version: 0, state: decider.initialState },
  version = from.version + history.length,
): Decision<Eo, S> {
  // A stream holds only events its deciders read (stream ids are per aggregate): the one narrowing the stores make.
  const state = fold(
    decider,
    history.map((stored) => stored.event as Ei),
    from.state,
  );
  const events = decider.decide(command, state);
  return {
    expectedVersion: version,
    events,
    result: (stored) => ({
      events: stored as readonly StoredEvent<Eo>[],
      state: fold(decider, events, state),
      streamVersion: version + events.length,
    }),
  };
}

/** Thrown inside a dry-run unit of work to roll it back while carrying the result out. */
export class DryRunRollback {
  constructor(readonly result: unknown) {}
}
