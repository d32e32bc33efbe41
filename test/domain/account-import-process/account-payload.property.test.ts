import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountPayloadSchema, validateAccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import { fieldErrorsFromIssues } from '../../../src/domain/validation/field-errors.js';
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

  it('answers as the schema of record does (the compiled form included) when parts of an example are replaced', () => {
    const examples = [domestic(), business()];
    // Paths of both examples (a business part set on the domestic one), values of any shape and the examples' own.
    const paths = [...new Set(examples.flatMap((example) => pathsOf(example)))];
    const parts = examples.flatMap((example) => paths.map((path) => valueAt(example, path)).filter((value) => value !== undefined));
    const change = fc.tuple(
      fc.constantFrom(...paths),
      fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.constantFrom('', ' ', '2025-02-30', '+33612345678', 0, -1, 1.005), fc.constantFrom(...parts)),
    );
    fc.assert(
      fc.property(fc.nat(examples.length - 1), fc.array(change, { minLength: 1, maxLength: 3 }), (which, changes) => {
        const input = structuredClone(examples[which]!);
        // Deepest first, so that no change replaces the parent of a later one; a path the example lacks is skipped.
        const depth = (path: string) => path.split('.').length;
        for (const [path, value] of changes.sort((a, b) => depth(b[0]) - depth(a[0]))) {
          if (typeof valueAt(input, path.split('.').slice(0, -1).join('.')) === 'object') setAt(input, path, structuredClone(value));
        }
        const record = accountPayloadSchema.safeParse(input, { reportInput: true });
        const result = validateAccountPayload(input);
        if (record.success) {
          expect(result.ok).toBe(true);
          // The same value, keys in the same order (it is stored as it is answered).
          if (result.ok) expect(JSON.stringify(result.data)).toBe(JSON.stringify(record.data));
        } else {
          expect(result).toEqual({ ok: false, errors: fieldErrorsFromIssues(record.error.issues) });
        }
      }),
      { numRuns: 2000 },
    );
  });
});

/** The value at a dot path ('' for the whole value), or undefined. */
function valueAt(value: unknown, path: string): unknown {
  if (path === '') return value;
  return path.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), value);
}
