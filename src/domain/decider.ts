import type { DomainEvent } from '../../events/envelope.js';

/**
 * A pure decision model (Chassaing's decider; fraktalio/fmodel-decider's
 * `Ei`/`Eo`): `decide` turns a command and the current state into new events
 * (`Eo`), or throws a DomainError when a rule is broken; `evolve` folds one
 * event of its stream (`Ei`, which may hold events other deciders emit, e.g.
 * the account stream's customer emails) into the state and never throws.
 * Time, ids and looked-up facts arrive inside the command.
 */
export interface Decider<C, Ei extends DomainEvent, Eo extends Ei, S> {
  decide(command: C, state: S): readonly Eo[];
  evolve(state: S, event: Ei): S;
  readonly initialState: S;
}

/** Any decider, for code that only moves deciders around (the store). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDecider = Decider<any, any, any, any>;

export function fold<C, Ei extends DomainEvent, Eo extends Ei, S>(decider: Decider<C, Ei, Eo, S>, events: readonly Ei[]): S {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState);
}
