import { z } from 'zod';
import type { core } from 'zod';
import { decimalNumber, MAX_WHOLE_DIGITS } from '../account-records/money.js';
import { NOT_BLANK, noRepeatedKeys } from '../validation/field-errors.js';
import { FRENCH_POSTCODE, isFrenchPostcode, isValidPhone, isValidSiret, SIRET_FORM } from './identifiers.js';

/** Longest free-text line the platform stores (billing/supply address lines, references). */
export const MAX_LINE = 512;

/** A required string that is not empty or whitespace only (`blank`), optionally bounded (`max_length`). */
export function requiredText(max?: number) {
  const base = max === undefined ? z.string() : z.string().max(max);
  return base.regex(NOT_BLANK, 'This field may not be blank.');
}

/**
 * One of `values`. zod reports a missing or null enum as `invalid_value`, which
 * fieldErrorsFromIssues maps to `invalid_choice`; checking for a string first makes a
 * missing value `required`, null `null` and a non-string `invalid`, like any other field.
 */
export function choice<const V extends readonly [string, ...string[]]>(values: V) {
  return z.string().pipe(z.enum(values));
}

/** A string that may be empty (address lines, titles), optionally bounded (`max_length`). */
export function text(max?: number) {
  return max === undefined ? z.string() : z.string().max(max);
}

/** Empty string allowed; otherwise a valid French or international number (`invalid_phone_number`). */
export function phoneNumber() {
  return z
    .string()
    .refine((value) => value === '' || isValidPhone(value), {
      message: 'Not a valid phone number.',
      params: { code: 'invalid_phone_number' },
    })
    .meta({ description: 'Empty, or a French number (national or +33 form) or an international one that libphonenumber holds valid; else `invalid_phone_number`.' });
}

/** A French postcode, five digits (`invalid_postcode`); `allowEmpty` for the optional billing postcode. */
export function postcode(options: { allowEmpty: boolean }) {
  return z
    .string()
    .refine((value) => (options.allowEmpty && value === '') || isFrenchPostcode(value), {
      message: 'Not a valid postcode: expected five digits.',
      params: { code: 'invalid_postcode' },
    })
    .meta({ pattern: options.allowEmpty ? `^(?:${FRENCH_POSTCODE.source.slice(1, -1)})?$` : FRENCH_POSTCODE.source });
}

/** A SIRET (`invalid_siret`): its form is a pattern; its check digit, which JSON Schema cannot compute, is described. */
export function siret() {
  return z
    .string()
    .refine(isValidSiret, {
      message: 'Not a valid SIRET: expected 14 digits passing the Luhn check.',
      params: { code: 'invalid_siret' },
    })
    .meta({
      pattern: SIRET_FORM.source,
      description: "14 digits passing the Luhn check (La Poste's establishments, SIREN 356000000: digits summing to a multiple of 5); else `invalid_siret`.",
    });
}

/**
 * A non-negative amount in major units with at most two decimals and MAX_WHOLE_DIGITS whole digits, as
 * money everywhere (`min_value`, `max_decimal_places`, `max_whole_digits`). Kept as the JSON number the
 * caller sent; conversion to minor units happens where amounts are stored.
 */
export function money() {
  return decimalNumber(z.number().min(0), MAX_WHOLE_DIGITS, 2);
}

/**
 * The account payload's schemas are built in two forms from one definition. `report` is the schema of
 * record: the documented one, and the one that reports every issue of a refused payload (its cross-field
 * refinements run under `whenClean`). `accept` holds the same rules without those gates, and takes any
 * value where `report` takes any JSON value (a body is JSON already): zod compiles it (z.compile refuses a
 * custom `when` and a recursive schema like z.json()). A payload `report` accepts runs every refinement in
 * both forms, so the forms accept the same payloads with the same result.
 */
export type SchemaForm = 'report' | 'accept';

/** `whenClean(...fields)` in the `report` form; the `accept` form runs the refinement ungated. */
export function whenCleanIn(form: SchemaForm, ...fields: readonly (readonly PropertyKey[])[]) {
  return form === 'report' ? whenClean(...fields) : undefined;
}

/** An object of arbitrary JSON values (metadata values, contract metadata). */
export function jsonObject(form: SchemaForm) {
  // Typed as JSON in both forms: in the accept form, the values of a parsed body.
  const value = form === 'report' ? z.json() : (z.unknown() as z.ZodType<core.util.JSONType>);
  return z.record(z.string(), value);
}

/** Emits a domain issue at `path` (relative to the refined schema). */
export function addDomainIssue(
  ctx: core.$RefinementCtx<unknown>,
  code: string,
  message: string,
  path: PropertyKey[],
): void {
  ctx.addIssue({ code: 'custom', message, path, params: { code } });
}

/** Reports `to` when it is before `from`; both are valid ISO dates, so strings compare as dates. */
export function datesInOrder<K extends string>(form: SchemaForm, from: K, to: K) {
  return [
    (value: Record<K, string>, ctx: core.$RefinementCtx<unknown>) => {
      if (value[from] > value[to]) addDomainIssue(ctx, 'start_date_later_than_end_date', `${to} is before ${from}.`, [to]);
    },
    whenCleanIn(form, [from], [to]),
  ] as const;
}

/** Reports every later element whose `key` repeats an earlier one. */
export function uniqueBy<K extends string>(form: SchemaForm, key: K, code: string) {
  const repeated = noRepeatedKeys((item: Record<K, string>) => item[key], code, (value) => `Duplicate ${key} "${value}".`, (index) => [index, key]);
  return [repeated, whenCleanIn(form, [])] as const;
}

/** A note, staged or sent to notes/create/, needs a body or at least one document path. */
export function noteHasContent(form: SchemaForm) {
  return [
    (note: { readonly body?: string | undefined; readonly document_paths?: readonly unknown[] | undefined }, ctx: core.$RefinementCtx<unknown>) => {
      if ((note.body ?? '').trim() === '' && (note.document_paths ?? []).length === 0) {
        addDomainIssue(ctx, 'note_body_or_document_path_not_found', 'A note needs a body or at least one document path.', []);
      }
    },
    whenCleanIn(form, ['body'], ['document_paths']),
  ] as const;
}

/**
 * `when` option for a cross-field refinement: run it even though other parts of the
 * payload failed, as long as no issue touches the fields it reads. Paths overlap when
 * one is a prefix of the other, so a root-level issue (wrong type) always blocks it, and
 * `whenClean([])` runs the refinement only when the schema's whole value is valid (even
 * issues zod would let through, such as a failed date refinement on an element).
 */
export function whenClean(...fields: readonly (readonly PropertyKey[])[]) {
  return {
    when: (payload: core.ParsePayload): boolean =>
      typeof payload.value === 'object' &&
      payload.value !== null &&
      !payload.issues.some((issue) => fields.some((field) => overlaps(issue.path ?? [], field))),
  };
}

function overlaps(a: readonly PropertyKey[], b: readonly PropertyKey[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) if (a[i] !== b[i]) return false;
  return true;
}
