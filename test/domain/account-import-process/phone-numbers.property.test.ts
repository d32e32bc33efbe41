import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountPayloadSchema, validateAccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import { isValidPhone, libraryIsValidPhone } from '../../../src/domain/account-import-process/phone-numbers.js';
import { fieldErrorsFromIssues } from '../../../src/domain/validation/field-errors.js';
import { domestic } from './account-payload-fixtures.js';

const digits = (min: number, max: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));

/** Nine national digits: uniform, or after a short prefix drawn from all prefixes (every type's leading digits). */
const national = fc.oneof(
  digits(9, 9),
  fc.tuple(digits(1, 5), digits(0, 8)).map(([prefix, rest]) => (prefix + rest + '000000000').slice(0, 9)),
);

/** The canonical French shapes, their near misses, and other ways of writing numbers. */
const phoneLike = fc.oneof(
  national.map((n) => `+33${n}`),
  national.map((n) => `0${n}`),
  national.map((n) => `33${n}`),
  national.map((n) => `0033${n}`),
  national.map((n) => `+330${n}`),
  national.map((n) => `00${n}`),
  national.map((n) => `+33${n.slice(0, 8)}`),
  national.map((n) => `0${n}0`),
  national.map((n) => `+33 ${n.slice(0, 1)} ${n.slice(1, 3)} ${n.slice(3, 5)} ${n.slice(5, 7)} ${n.slice(7)}`),
  national.map((n) => `0${n.slice(0, 1)}.${n.slice(1, 3)}.${n.slice(3, 5)}.${n.slice(5, 7)}.${n.slice(7)}`),
  fc.tuple(fc.constantFrom('+1', '+44', '+32', '+41', '+262', '+590', '+377', '+3', '+'), digits(4, 12)).map(([cc, n]) => cc + n),
  fc.tuple(national, fc.constantFrom(' ext. 12', ';ext=5', 'x', ' ', '\n', '#')).map(([n, tail]) => `+33${n}${tail}`),
  fc.tuple(fc.constantFrom('tel:', ' ', '(', '+', '++'), national).map(([head, n]) => `${head}+33${n}`),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: fc.constantFrom(...'0123456789+ -.()'), maxLength: 16 }),
);

/** Every phone number in the shared and fixture examples. */
function examplePhones(): string[] {
  const found = new Set<string>(['+33612345678', '+33698765432', '+33478123456']);
  for (const dir of [join(import.meta.dirname, '../../../../shared/examples'), join(import.meta.dirname, '../../fixtures/examples')]) {
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    } catch {
      continue; // ../shared (beside the repository) exists on the team's machines only
    }
    for (const file of files) {
      for (const match of readFileSync(join(dir, file), 'utf8').matchAll(/"(?:mobile|landline)":\s*"([^"]*)"/g)) found.add(match[1]!);
    }
  }
  return [...found];
}

describe('isValidPhone (libphonenumber behind a bounded memo)', () => {
  it('answers as libphonenumber does on the examples', () => {
    for (const phone of examplePhones()) expect(isValidPhone(phone), phone).toBe(libraryIsValidPhone(phone));
  });

  it('answers as libphonenumber does on generated numbers of every shape', () => {
    fc.assert(
      fc.property(phoneLike, (phone) => {
        expect(isValidPhone(phone)).toBe(libraryIsValidPhone(phone));
        // Asked again: the memo's answer.
        expect(isValidPhone(phone)).toBe(libraryIsValidPhone(phone));
      }),
      { numRuns: 20_000 },
    );
  });

  it('answers as libphonenumber does on every French national number prefix of up to four digits', () => {
    for (let prefix = 0; prefix < 10_000; prefix++) {
      for (const width of [1, 2, 3, 4]) {
        if (prefix >= 10 ** width) continue;
        const head = String(prefix).padStart(width, '0');
        for (const tail of ['000000000', '999999999', '123456789', '555555555']) {
          const n = (head + tail).slice(0, 9);
          for (const phone of [`+33${n}`, `0${n}`]) expect(isValidPhone(phone), phone).toBe(libraryIsValidPhone(phone));
        }
      }
    }
  });

  it('leaves the validation’s answers (codes, attrs, messages) as the library’s check makes them', () => {
    const invalid = (attr: string) => ({ attr, code: 'invalid_phone_number', detail: 'Not a valid phone number.' });
    fc.assert(
      fc.property(phoneLike, phoneLike, (mobile, landline) => {
        const input = domestic();
        input.customers[0] = { ...input.customers[0]!, mobile, landline };
        const expected = [
          ...(mobile === '' || libraryIsValidPhone(mobile) ? [] : [invalid('customers.0.mobile')]),
          ...(landline === '' || libraryIsValidPhone(landline) ? [] : [invalid('customers.0.landline')]),
        ];
        const result = validateAccountPayload(input);
        expect(result.ok ? [] : result.errors).toEqual(expected);
        const schema = accountPayloadSchema.safeParse(input, { reportInput: true });
        expect(schema.success ? [] : fieldErrorsFromIssues(schema.error.issues)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
