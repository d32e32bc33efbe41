import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountPayloadSchema, validateAccountPayload, type AccountPayloadValidation } from '../../../src/domain/account-import-process/account-payload.js';
import { fastAccountPayload } from '../../../src/domain/account-import-process/account-payload-fast.js';
import { isCalendarDate } from '../../../src/domain/account-import-process/iso-dates.js';
import { fieldErrorsFromIssues } from '../../../src/domain/validation/field-errors.js';
import { business, domestic, loadExample } from './account-payload-fixtures.js';

/** The validation as it was before the fast path: the schema alone. */
function reference(input: unknown): AccountPayloadValidation {
  const result = accountPayloadSchema.safeParse(input, { reportInput: true });
  return result.success ? { ok: true, data: result.data } : { ok: false, errors: fieldErrorsFromIssues(result.error.issues) };
}

/** Values any field may be given: wrong types, blanks, lengths around the limits, other fields' valid values. */
const ANY_FIELD: readonly unknown[] = [
  null, true, 0, -1, 1.5, [], {}, '', ' ', 'x', 'x'.repeat(21), 'x'.repeat(129), 'x'.repeat(256), 'x'.repeat(513), 'x'.repeat(1025),
  '2025-07-01', '2024-12-20T10:15:00+01:00', '+33612345678', '75011', '09111642617347', '21461231498752', 'GI123456', '44306184100047',
  'ELECTRICITY', 'GAS', 'DOMESTIC', 'BUSINESS', 'PASSIVE', 'ACTIVE_NEW', 'ACTIVE_EXISTING', 'ENERGY_CHEQUE_LEDGER', 'CONTRACT_METADATA',
  'TERMINATION_FEE', 'GOCARDLESS', 'MD000123ABC', 'ELEC_CURVES', 'GAS_INDEXES', '0.1890', 'a@b.fr', 'a@b',
];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Values near `value`: the neighbours a rule tells apart (the day after a date, 28 and 29, 2 and 3 decimals, ...). */
function nearValues(value: unknown): unknown[] {
  if (typeof value === 'number') {
    return [value - 1, value + 1, -value, value + 0.001, value * 10, 0, -0, 1, 12, 13, 28, 29, 31, 32, 100, 101, 12.34, 12.345, 2 ** 53, 1e21];
  }
  if (typeof value === 'boolean') return [!value, String(value)];
  if (typeof value !== 'string') return [];
  const near = [`${value}x`, value.slice(1), value.slice(0, -1), ` ${value}`, `${value}\n`, value.toLowerCase(), value.toUpperCase()];
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const rest = value.slice(10);
    for (const [yy, mm, dd] of [[y, m, d + 1], [y, m, d - 1], [y, m, d + 2], [y, m + 1, 1], [y, m - 1, 28], [y + 1, m, d], [y - 1, m, d], [y, 2, 29], [2024, 2, 29], [y, m, 31], [y, 13, d], [y, 0, d], [y, m, 0]]) {
      near.push(`${pad(yy!, 4)}-${pad(mm!)}-${pad(dd!)}${rest}`);
    }
    if (rest) near.push(value.slice(0, 10), `${value.slice(0, 10)}T24:00:00Z`, `${value.slice(0, 10)}T10:15:00+25:00`, `${value.slice(0, 10)}T10:15:00.123Z`);
  }
  if (/\d/.test(value)) near.push(value.replace(/\d(?!.*\d)/, (digit) => String((Number(digit) + 1) % 10)), value.replace(/\d/g, '1'));
  return near;
}

type Path = readonly (string | number)[];
/** One change to a payload, in place. */
type Mutation = (payload: unknown) => void;

function nodeAt(payload: unknown, path: Path): Record<string | number, unknown> | null {
  const node = path.reduce<unknown>((inner, part) => (typeof inner === 'object' && inner !== null ? (inner as Record<string | number, unknown>)[part] : undefined), payload);
  return typeof node === 'object' && node !== null ? (node as Record<string | number, unknown>) : null;
}

/** Every single change this test makes to `example`: each field deleted or replaced, each array element repeated, unknown keys added. */
function mutationsOf(example: unknown): Mutation[] {
  const mutations: Mutation[] = [];
  const visit = (value: unknown, path: Path) => {
    if (path.length > 0) {
      const parent = path.slice(0, -1);
      const key = path[path.length - 1]!;
      mutations.push((payload) => {
        const node = nodeAt(payload, parent);
        if (Array.isArray(node)) node.splice(Number(key), 1);
        else if (node) delete node[key];
      });
      for (const replacement of [...nearValues(value), ...ANY_FIELD]) {
        mutations.push((payload) => {
          const node = nodeAt(payload, parent);
          if (node) node[key] = structuredClone(replacement);
        });
      }
    }
    if (Array.isArray(value)) {
      value.forEach((element, index) => {
        mutations.push((payload) => {
          const node = nodeAt(payload, path);
          if (Array.isArray(node)) node.push(structuredClone(element));
        });
        visit(element, [...path, index]);
      });
    } else if (typeof value === 'object' && value !== null) {
      for (const extra of ['extra', '__proto__', 'type', 'body', 'instruction_reference_params']) {
        mutations.push((payload) => {
          const node = nodeAt(payload, path);
          if (node) Object.defineProperty(node, extra, { value: 'x', enumerable: true, writable: true, configurable: true });
        });
      }
      for (const [key, inner] of Object.entries(value)) visit(inner, [...path, key]);
    }
  };
  visit(example, []);
  return mutations;
}

const examples = [domestic(), business()];
const mutationsByExample = examples.map(mutationsOf);

/** The fast path says valid only where the schema does, with the same output; validation answers as the schema alone. */
function expectAgreement(input: unknown): boolean {
  const fast = fastAccountPayload(input);
  const schema = reference(input);
  if (fast !== null) {
    expect(schema.ok).toBe(true);
    if (schema.ok) expect(JSON.stringify(fast)).toBe(JSON.stringify(schema.data));
  }
  expect(validateAccountPayload(input)).toEqual(schema);
  return fast !== null;
}

describe('the account payload fast path agrees with the schema', () => {
  it('accepts every valid example, with exactly the schema output (same keys, same order)', () => {
    for (const input of [domestic(), business(), loadExample('account-domestic'), loadExample('account-business')]) {
      const fast = fastAccountPayload(input);
      expect(fast).not.toBeNull();
      const schema = accountPayloadSchema.safeParse(input);
      expect(schema.success).toBe(true);
      expect(JSON.stringify(fast)).toBe(JSON.stringify(schema.data));
    }
  });

  it('on every single change to the examples (a field deleted or replaced by a near or odd value, an element repeated, a key added)', () => {
    let accepted = 0;
    let total = 0;
    examples.forEach((example, which) => {
      for (const mutate of mutationsByExample[which]!) {
        const input = structuredClone(example);
        mutate(input);
        total++;
        if (expectAgreement(input)) accepted++;
      }
    });
    // The fast path is used, not only consulted: many single changes keep the payload valid.
    expect(accepted).toBeGreaterThan(total / 10);
  });

  it('on examples with several changes at once (the cross-field rules)', () => {
    const changed = fc.integer({ min: 0, max: examples.length - 1 }).chain((which) =>
      fc.array(fc.constantFrom(...mutationsByExample[which]!), { minLength: 2, maxLength: 5 }).map((mutations) => {
        const input = structuredClone(examples[which]);
        for (const mutate of mutations) mutate(input);
        return input;
      }),
    );
    fc.assert(
      fc.property(changed, (input) => {
        expectAgreement(input);
      }),
      { numRuns: 2000 },
    );
  });

  it('on arbitrary JSON: whatever it accepts the schema accepts with the same output', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (input) => {
        const fast = fastAccountPayload(input);
        if (fast === null) return;
        const schema = reference(input);
        expect(schema.ok).toBe(true);
        if (schema.ok) expect(JSON.stringify(fast)).toBe(JSON.stringify(schema.data));
      }),
    );
  });

  it('reads calendar dates as the pattern /^(\\d{4})-(\\d{2})-(\\d{2})$/ and the calendar do', () => {
    const byPattern = (value: string) => {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
      if (!match) return false;
      const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
      return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 1 : 0);
    };
    const dateLike = fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(
        ([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
      ),
      fc.string({ minLength: 10, maxLength: 10 }),
      fc.stringMatching(/^[\d-]{8,11}$/),
    );
    fc.assert(
      fc.property(dateLike, (value) => {
        expect(isCalendarDate(value)).toBe(byPattern(value));
      }),
    );
  });
});
