import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bandKey, type ProductEvent } from '../../../events/product.js';
import { productDecider as decider } from '../../../src/domain/product/decider.js';
import type { ProductState } from '../../../src/domain/product/state.js';
import { DomainError } from '../../../src/domain/errors.js';
import { command, expectContinuousBands, productDraft } from './product-arbitraries.js';

describe('product decider (properties)', () => {
  it('for any create / add-rates sequence: bands stay continuous, attributes never change, refusals change nothing', () => {
    fc.assert(
      fc.property(fc.array(productDraft('P'), { minLength: 1, maxLength: 12 }), (drafts) => {
        let state: ProductState = decider.initialState;
        let history: ProductEvent[] = [];
        let createdWith: unknown = null;
        drafts.forEach((draft, i) => {
          const before = structuredClone(state);
          let events: readonly ProductEvent[];
          try {
            events = decider.decide(command(draft, i), state);
          } catch (error) {
            // Only rule refusals, and (3) the state is untouched and the same command is refused again.
            expect(error).toBeInstanceOf(DomainError);
            expect(['no_matching_rate', 'rate_not_continuous']).toContain((error as DomainError).code);
            expect(state).toEqual(before);
            expect(() => decider.decide(command(draft, i), state)).toThrow(DomainError);
            return;
          }
          expect(state).toEqual(before);
          state = events.reduce(decider.evolve, state);
          history = [...history, ...events];
          if (createdWith === null && state.status === 'created') createdWith = state.product;
          // The first command always creates: a new product starts each band with its first rate.
          expect(state.status).toBe('created');
          if (state.status !== 'created') return;
          // (2) attributes are those of the creating command, whatever later commands said.
          expect(state.product).toEqual(createdWith);
          // (1) continuity after every accepted command.
          expectContinuousBands(state.rates);
          // The state is exactly the fold of the accepted events.
          expect(history.reduce(decider.evolve, decider.initialState)).toEqual(state);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('a rate is refused only when it would break continuity: every accepted new rate is in the timeline once', () => {
    fc.assert(
      fc.property(fc.array(productDraft('P'), { minLength: 2, maxLength: 8 }), (drafts) => {
        let state: ProductState = decider.initialState;
        drafts.forEach((draft, i) => {
          try {
            state = decider.decide(command(draft, i), state).reduce(decider.evolve, state);
          } catch {
            return;
          }
          if (state.status !== 'created') return;
          for (const r of draft.rates) {
            const matches = state.rates.filter(
              (s) => s.bandKey === bandKey(r.band) && s.validFrom === `${r.validFromDate}T00:00:00Z` && s.pricePerUnit === r.pricePerUnit,
            );
            expect(matches.length).toBeGreaterThanOrEqual(1);
          }
        });
      }),
      { numRuns: 200 },
    );
  });
});
