import type { DomainEvent } from '../../events/envelope.js';

/**
 * A pure decision model (Chassaing's decider): `decide` turns a command and
 * the current state into new events, or throws a DomainError when a rule is
 * broken; `evolve` folds one event into the state and never throws. Time, ids
 * and looked-up facts arrive inside the command.
 */
export interface Decider<C, E extends DomainEvent, S> {
  decide(command: C, state: S): readonly E[];
  evolve(state: S, event: E): S;
  readonly initialState: S;
}

export function fold<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: readonly E[]): S {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState);
}
