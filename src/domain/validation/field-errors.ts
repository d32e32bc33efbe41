import type { core, z } from 'zod';
import { NON_FIELD_ERRORS, type FieldError } from '../errors.js';

export type Validation<T> = { ok: true; data: T } | { ok: false; errors: FieldError[] };

/** Parses a request body; on failure every problem found is returned as a FieldError (spec 7). */
export function validateWith<S extends z.ZodType>(schema: S, input: unknown): Validation<z.output<S>> {
  const result = schema.safeParse(input, { reportInput: true });
  return result.success ? { ok: true, data: result.data } : { ok: false, errors: fieldErrorsFromIssues(result.error.issues) };
}

type Issue = core.$ZodIssue;

/**
 * What a text that may not be blank holds: a character other than whitespace (the same whitespace as
 * `String.prototype.trim`). A pattern, so that the document states it; a string that does not match is `blank`.
 */
export const NOT_BLANK = /\S/;

/**
 * A refinement of a list that reports, with the domain `code`, every item whose key repeats an earlier
 * item's, at `pathOf(index)`; `detail` is told the key, the item and the index of the earlier one.
 */
export function noRepeatedKeys<T>(
  keyOf: (item: T) => string,
  code: string,
  detail: (key: string, item: T, first: number) => string,
  pathOf: (index: number) => PropertyKey[],
) {
  return (items: readonly T[], ctx: core.$RefinementCtx<unknown>): void => {
    const seen = new Map<string, number>();
    items.forEach((item, index) => {
      const key = keyOf(item);
      const first = seen.get(key);
      if (first === undefined) seen.set(key, index);
      else ctx.addIssue({ code: 'custom', message: detail(key, item, first), path: pathOf(index), params: { code } });
    });
  };
}

/** Dot path with zero-based indexes: `customers.0.landline` (spec 7.1); the request as a whole: `non_field_errors`. */
function attrOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return NON_FIELD_ERRORS;
  return path.map((part) => String(part)).join('.');
}

/**
 * Maps zod issues to the Django REST framework vocabulary of the spec's error example. Custom refinements
 * carry their domain code in `params.code`. Issues are produced with `reportInput: true`, so that a missing
 * field (`required`) can be told from an explicit null (`null`) and a wrong type (`invalid`).
 */
export function fieldErrorsFromIssues(issues: readonly Issue[]): FieldError[] {
  return issues.flatMap((issue) => flattenUnion(issue)).map((issue) => ({ detail: detailOf(issue), code: codeOf(issue), attr: attrOf(issue.path) }));
}

/** A failed discriminated union reports the issues of the branch it chose when there is one. */
function flattenUnion(issue: Issue): Issue[] {
  if (issue.code === 'invalid_union' && 'errors' in issue && issue.errors.length === 1) {
    const branch = issue.errors[0] ?? [];
    return branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as Issue).flatMap(flattenUnion);
  }
  return [issue];
}

/** A missing or null value, whatever the field's type (a union of a number and a decimal string too). */
function absence(issue: Issue): 'required' | 'null' | null {
  if (issue.code !== 'invalid_type' && issue.code !== 'invalid_value' && issue.code !== 'invalid_union') return null;
  return issue.input === undefined ? 'required' : issue.input === null ? 'null' : null;
}

function codeOf(issue: Issue): string {
  const absent = absence(issue);
  if (absent) return absent;
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'array' ? 'not_a_list' : 'invalid';
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'blank' : 'min_length';
      if (issue.origin === 'array' || issue.origin === 'set') return Number(issue.minimum) <= 1 ? 'empty' : 'min_length';
      return 'min_value';
    case 'too_big':
      if (issue.origin === 'string' || issue.origin === 'array' || issue.origin === 'set') return 'max_length';
      return 'max_value';
    case 'invalid_value':
      return 'invalid_choice';
    case 'invalid_format':
      return issue.format === 'regex' && issue.pattern === String(NOT_BLANK) ? 'blank' : 'invalid';
    case 'not_multiple_of':
      return 'max_decimal_places';
    case 'unrecognized_keys':
      return 'unknown_field';
    case 'custom': {
      const code = issue.params?.['code'];
      return typeof code === 'string' ? code : 'invalid';
    }
    default:
      return 'invalid';
  }
}

function detailOf(issue: Issue): string {
  const absent = absence(issue);
  if (absent) return absent === 'required' ? 'This field is required.' : 'This field may not be null.';
  switch (issue.code) {
    case 'invalid_type':
      return `Expected ${issue.expected}.`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) <= 1) return 'This field may not be blank.';
      if ((issue.origin === 'array' || issue.origin === 'set') && Number(issue.minimum) <= 1) return 'This list may not be empty.';
      return issue.message;
    case 'invalid_value':
      return `Not a valid choice; expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}.`;
    default:
      return issue.message;
  }
}
