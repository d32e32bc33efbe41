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
 * A refinement of a list that reports, with the domain `code`, every item whose key repeats an earlier
 * item's, at `pathOf(index)`.
 */
export function noRepeatedKeys<T>(keyOf: (item: T) => string, code: string, detail: (key: string) => string, pathOf: (index: number) => PropertyKey[]) {
  return (items: readonly T[], ctx: core.$RefinementCtx<unknown>): void => {
    const seen = new Set<string>();
    items.forEach((item, index) => {
      const key = keyOf(item);
      if (seen.has(key)) ctx.addIssue({ code: 'custom', message: detail(key), path: pathOf(index), params: { code } });
      seen.add(key);
    });
  };
}

/** Dot path with zero-based indexes: `customers.0.landline` (spec 7.1); the request as a whole: `non_field_errors`. */
export function attrOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return NON_FIELD_ERRORS;
  return path.map((part) => String(part)).join('.');
}

/**
 * Maps one zod issue to the Django REST framework vocabulary the spec's error
 * example comes from. Custom refinements carry their domain code in
 * `params.code` (e.g. `invalid_phone_number`). Issues must be produced with
 * `reportInput: true` so that a missing field (`required`) can be told from an
 * explicit null (`null`) and a wrong type (`invalid`).
 */
export function fieldErrorFromIssue(issue: Issue): FieldError {
  const attr = attrOf(issue.path);
  return { detail: detailOf(issue), code: codeOf(issue), attr };
}

export function fieldErrorsFromIssues(issues: readonly Issue[]): FieldError[] {
  return issues.flatMap((issue) => flattenUnion(issue)).map(fieldErrorFromIssue);
}

/** A failed discriminated union reports the issues of the branch it chose when there is one. */
function flattenUnion(issue: Issue): Issue[] {
  if (issue.code === 'invalid_union' && 'errors' in issue && issue.errors.length === 1) {
    const branch = issue.errors[0] ?? [];
    return branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as Issue).flatMap(flattenUnion);
  }
  return [issue];
}

function codeOf(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'required';
      if (issue.input === null) return 'null';
      if (issue.expected === 'array') return 'not_a_list';
      if (issue.expected === 'object') return 'invalid';
      return 'invalid';
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'blank' : 'min_length';
      if (issue.origin === 'array' || issue.origin === 'set') return Number(issue.minimum) <= 1 ? 'empty' : 'min_length';
      return 'min_value';
    case 'too_big':
      if (issue.origin === 'string' || issue.origin === 'array' || issue.origin === 'set') return 'max_length';
      return 'max_value';
    case 'invalid_value':
      if (issue.input === undefined) return 'required';
      if (issue.input === null) return 'null';
      return 'invalid_choice';
    case 'invalid_format':
      return 'invalid';
    case 'not_multiple_of':
      return 'max_decimal_places';
    case 'unrecognized_keys':
      return 'unknown_field';
    case 'invalid_union':
      // A field that may be one of several types (a number or a decimal string) is still missing or null first.
      if (issue.input === undefined) return 'required';
      if (issue.input === null) return 'null';
      return 'invalid';
    case 'invalid_key':
    case 'invalid_element':
      return 'invalid';
    case 'custom': {
      const code = issue.params?.['code'];
      return typeof code === 'string' ? code : 'invalid';
    }
    default:
      return 'invalid';
  }
}

function detailOf(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'This field is required.';
      if (issue.input === null) return 'This field may not be null.';
      return `Expected ${issue.expected}.`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) <= 1) return 'This field may not be blank.';
      if ((issue.origin === 'array' || issue.origin === 'set') && Number(issue.minimum) <= 1) return 'This list may not be empty.';
      return issue.message;
    case 'invalid_union':
      if (issue.input === undefined) return 'This field is required.';
      if (issue.input === null) return 'This field may not be null.';
      return issue.message;
    case 'invalid_value':
      if (issue.input === undefined) return 'This field is required.';
      if (issue.input === null) return 'This field may not be null.';
      return `Not a valid choice; expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}.`;
    default:
      return issue.message;
  }
}
