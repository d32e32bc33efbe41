import { expect } from 'vitest';
import type { DomainEvent } from '../../events/envelope.js';
import { DomainError } from '../../src/domain/errors.js';
import type { Decider } from '../../src/domain/decider.js';

/**
 * Decider tests as given/when/then:
 * `given(decider, events).when(command).then(expectedEvents)` or
 * `.thenFails('error_code')`.
 */
export function given<C, Ei extends DomainEvent, Eo extends Ei, S>(decider: Decider<C, Ei, Eo, S>, history: readonly NoInfer<Ei>[] = []) {
  const state = history.reduce((s, e) => decider.evolve(s, e), decider.initialState);
  return {
    when(command: C) {
      const run = () => decider.decide(command, state);
      return {
        then(expected: readonly NoInfer<Eo>[]) {
          expect(run()).toEqual(expected);
        },
        thenFails(code: string, extra?: Record<string, unknown>) {
          let thrown: unknown;
          try {
            run();
          } catch (error) {
            thrown = error;
          }
          expect(thrown).toBeInstanceOf(DomainError);
          expect((thrown as DomainError).code).toBe(code);
          if (extra) expect((thrown as DomainError).extra).toMatchObject(extra);
          return thrown as DomainError;
        },
      };
    },
  };
}
