import type { DomainEvent } from '../../events/envelope.js';

/**
 * A pure decision model (Chassaing's decider; fraktalio/fmodel-decider's
 * `Ei`/`Eo`): `decide` turns a command and the current state into new events
 * (`Eo`), or throws a DomainError when a rule is broken; `evolve` folds one
 * event of its stream (`Ei`, which may hold events other deciders emit, e.g.
 * the account stream's customer emails) into the state and never throws.
 * Time, ids and looked-up facts arrive inside the command.
 *
 * `fold`, when a decider has one, folds many events at once and must equal
 * `events.reduce(evolve, state)`: deciders whose state holds a Set or a Map
 * (ids seen, notes by content) give one, because an `evolve` that copies its
 * collection per event makes folding a stream quadratic (an account of
 * 10,000 transactions would take seconds to fold). See `ownedEvolution`.
 */
export interface Decider<C, Ei extends DomainEvent, Eo extends Ei, S> {
  decide(command: C, state: S): readonly Eo[];
  evolve(state: S, event: Ei): S;
  readonly initialState: S;
  fold?(state: S, events: readonly Ei[]): S;
}

/** Any decider, for code that only moves deciders around (the store). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDecider = Decider<any, any, any, any>;

/** The state after `events`, from the initial state or `from`: the decider's own fold when it has one. */
export function fold<C, Ei extends DomainEvent, Eo extends Ei, S>(
  decider: Decider<C, Ei, Eo, S>,
  events: readonly Ei[],
  from: S = decider.initialState,
): S {
  if (decider.fold) return decider.fold(from, events);
  let state = from;
  for (const event of events) state = decider.evolve(state, event);
  return state;
}

/**
 * One definition of how an event changes a state, written against a state the
 * fold owns, from which both `evolve` and `fold` are built:
 *
 * - `own` copies a state so that nothing `step` mutates is shared with it;
 * - `step` folds one event into an owned state, mutating its collections if it
 *   likes, and returns the next state (the same object or a new one sharing
 *   what it owns);
 * - `folds`, when given, says which events change the state at all: the
 *   others are skipped without copying anything.
 *
 * `evolve(state, event)` owns a copy and steps once, as before; `fold` owns
 * one copy and steps through every event, so a stream folds in linear time.
 * Neither ever changes the state it was given: purity, as callers see it, holds.
 */
export function ownedEvolution<S, E, D extends S>(steps: {
  readonly own: (state: S) => D;
  readonly step: (owned: D, event: E) => D;
  readonly folds?: (event: E) => boolean;
}): { evolve(state: S, event: E): S; fold(state: S, events: readonly E[]): S } {
  const { own, step, folds } = steps;
  return {
    evolve: (state, event) => (folds && !folds(event) ? state : step(own(state), event)),
    fold: (state, events) => {
      let owned: D | null = null;
      for (const event of events) {
        if (folds && !folds(event)) continue;
        owned = step(owned ?? own(state), event);
      }
      return owned ?? state;
    },
  };
}
