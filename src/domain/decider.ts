import type { DomainEvent } from '../../events/envelope.js';

/**
 * A pure decision model (Chassaing's decider; fmodel-decider's `Ei`/`Eo`): `decide` turns a command and the
 * state into events or throws a DomainError; `evolve` folds one event of its stream and never throws. `fold`,
 * when given, equals `events.reduce(evolve, state)`: a state holding a Set or a Map gives one, since copying
 * it per event makes a fold quadratic (see `ownedEvolution`).
 */
export interface Decider<C, Ei extends DomainEvent, Eo extends Ei, S> {
  decide(command: C, state: S): readonly Eo[];
  evolve(state: S, event: Ei): S;
  readonly initialState: S;
  fold?(state: S, events: readonly Ei[]): S;
  /**
   * The keys of a staged account payload (the `payload` of AccountStaged and AccountRestaged) that `evolve`
   * reads, when it reads only these: a store may then load only them, since the payload is most of an
   * account stream's bytes.
   */
  readonly payloadKeysFolded?: readonly string[];
  /**
   * The event types `evolve` changes the state on, when it leaves it as it is on every other: a store may then
   * load only these (and the stream's version apart), since a stream's other events are most of its bytes.
   */
  readonly eventTypesFolded?: readonly string[];
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
 * `evolve` and `fold` from one `step` that mutates a state the fold owns (`own` copies it; `folds`, when
 * given, says which events change the state at all): `fold` owns one copy for the whole stream, so it runs
 * in linear time. Neither changes the state it was given.
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
