import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateAccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import { business, domestic, setAt } from './account-payload-fixtures.js';

const ELEC_IDENTIFIER = 'supply_addresses.0.supply_points.0.identifier';

/** Every dot path to a value inside `value` (objects and arrays), for random mutations. */
function pathsOf(value: unknown, prefix: string[] = []): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = [...prefix, key];
    return [path.join('.'), ...pathsOf(inner, path)];
  });
}

describe('validateAccountPayload properties', () => {
  it('rejects any ELECTRICITY identifier that is not 14 digits with invalid_supply_point_identifier', () => {
    const notFourteenDigits = fc
      .oneof(fc.string(), fc.stringMatching(/^\d{12,16}$/), fc.stringMatching(/^GI\d{6}$/), fc.stringMatching(/^\d{14}\s$/))
      .filter((s) => !/^\d{14}$/.test(s));
    fc.assert(
      fc.property(notFourteenDigits, (identifier) => {
        const result = validateAccountPayload(setAt(domestic(), ELEC_IDENTIFIER, identifier));
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.errors).toContainEqual(expect.objectContaining({ code: 'invalid_supply_point_identifier', attr: ELEC_IDENTIFIER }));
      }),
    );
  });

  it('accepts any 14-digit ELECTRICITY identifier that is not already used', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{14}$/), (identifier) => {
        fc.pre(identifier !== '21461231498752');
        const input = setAt(domestic(), ELEC_IDENTIFIER, identifier);
        setAt(input, 'payment_preferences.0.supply_point_identifier', identifier);
        expect(validateAccountPayload(input)).toEqual({ ok: true, data: input });
      }),
    );
  });

  it('never throws on an arbitrary value, and always answers with well-formed errors', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.jsonValue()), (input) => {
        const result = validateAccountPayload(input);
        if (!result.ok) {
          expect(result.errors.length).toBeGreaterThan(0);
          for (const error of result.errors) {
            expect(typeof error.code).toBe('string');
            expect(typeof error.detail).toBe('string');
          }
        }
      }),
    );
  });

  it('never throws when any part of an example is replaced by an arbitrary JSON value', () => {
    const examples = [domestic(), business()];
    const mutation = fc.integer({ min: 0, max: examples.length - 1 }).chain((which) =>
      fc.record({
        which: fc.constant(which),
        path: fc.constantFrom(...pathsOf(examples[which])),
        value: fc.oneof(fc.jsonValue(), fc.constant(undefined)),
      }),
    );
    fc.assert(
      fc.property(mutation, ({ which, path, value }) => {
        const input = setAt(structuredClone(examples[which]!), path, value);
        const result = validateAccountPayload(input);
        if (!result.ok) for (const error of result.errors) expect(typeof error.attr).toBe('string');
      }),
      { numRuns: 500 },
    );
  });
});
