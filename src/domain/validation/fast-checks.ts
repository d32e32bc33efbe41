import type { core } from 'zod';

/**
 * Plain-function checks for a fast path in front of a zod schema (the account payload's:
 * account-payload-fast.ts). A check returns the value zod would output (unknown keys
 * stripped, keys in the schema's order) or FAIL. FAIL never means "invalid": it means "not
 * certainly valid, ask the schema", so a check may FAIL on anything unusual (a present
 * `undefined`, a `__proto__` key, a non-plain object) and the schema, which alone produces
 * the errors, decides. What a check accepts the schema must accept with the same output: a
 * property test holds the two together on random and mutated payloads.
 */
export const FAIL: unique symbol = Symbol('not certainly valid');
export type Fail = typeof FAIL;
export type Check = (value: unknown) => unknown;

interface Optional {
  readonly optional: Check;
}

/** A field that may be absent (never present as `undefined`: see object). */
export const optional = (check: Check): Optional => ({ optional: check });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * z.object (strip): the shape's keys in the shape's order, absent optional keys left out.
 * `refine`, given the output, stands for the schema's superRefine(s): false fails.
 */
export function object(shape: Readonly<Record<string, Check | Optional>>, refine?: (output: Record<string, unknown>) => boolean): Check {
  const keys = Object.keys(shape);
  const checks = keys.map((key) => {
    const field = shape[key]!;
    return typeof field === 'function' ? field : field.optional;
  });
  const optionals = keys.map((key) => typeof shape[key] !== 'function');
  return (value) => {
    if (!isObject(value)) return FAIL;
    const output: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const field = value[key];
      if (field === undefined) {
        // Absent: fine when optional. Present as undefined (never from JSON): the schema decides.
        if (optionals[i] && !(key in value)) continue;
        return FAIL;
      }
      const checked = checks[i]!(field);
      if (checked === FAIL) return FAIL;
      output[key] = checked;
    }
    return refine === undefined || refine(output) ? output : FAIL;
  };
}

/** z.array(check).min(min), `refine` standing for a superRefine on the array. */
export function array(check: Check, min = 0, refine?: (output: unknown[]) => boolean): Check {
  return (value) => {
    if (!Array.isArray(value) || value.length < min) return FAIL;
    const output: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const checked = check(value[i]);
      if (checked === FAIL) return FAIL;
      output[i] = checked;
    }
    return refine === undefined || refine(output) ? output : FAIL;
  };
}

/** A string passing `test` (z.string() with its checks and refinements). */
export const stringWhere =
  (test: (value: string) => boolean): Check =>
  (value) =>
    typeof value === 'string' && test(value) ? value : FAIL;

/** z.string(), optionally .max(max). */
export const string = (max?: number): Check =>
  max === undefined ? stringWhere(() => true) : stringWhere((value) => value.length <= max);

/** payload-fields' requiredText: not blank, optionally .max(max). */
export const requiredText = (max?: number): Check =>
  stringWhere((value) => (max === undefined || value.length <= max) && value.trim() !== '');

/** payload-fields' choice: one of `values`. */
export function oneOf(values: readonly string[]): Check {
  const allowed = new Set(values);
  return stringWhere((value) => allowed.has(value));
}

/** z.number() (finite) passing `test`. */
export const numberWhere =
  (test: (value: number) => boolean): Check =>
  (value) =>
    typeof value === 'number' && Number.isFinite(value) && test(value) ? value : FAIL;

/** z.int() (a safe integer) within [min, max]. */
export const int = (min = -Infinity, max = Infinity): Check =>
  numberWhere((value) => Number.isSafeInteger(value) && value >= min && value <= max);

export const boolean: Check = (value) => (typeof value === 'boolean' ? value : FAIL);

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (!isObject(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && Object.getOwnPropertySymbols(value).length === 0;
};

/** z.record(z.string(), check): a copy; a `__proto__` key (zod drops it) fails. */
export function record(check: Check): Check {
  return (value) => {
    if (!isPlainObject(value)) return FAIL;
    const output: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (key === '__proto__') return FAIL;
      const checked = check(value[key]);
      if (checked === FAIL) return FAIL;
      output[key] = checked;
    }
    return output;
  };
}

/** z.json(): a copy of any JSON value (string, finite number, boolean, null, array, plain object). */
export const json: Check = (value) => {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : FAIL;
  if (Array.isArray(value)) return jsonArray(value);
  return jsonRecord(value);
};
const jsonArray = array(json);
const jsonRecord = record(json);

/** Whether a zod refinement (value, ctx) => void adds no issue to `value`. */
export function passes<T>(refinement: (value: T, ctx: core.$RefinementCtx<unknown>) => void, value: T): boolean {
  let clean = true;
  const ctx = {
    addIssue: () => {
      clean = false;
    },
  } as unknown as core.$RefinementCtx<unknown>;
  refinement(value, ctx);
  return clean;
}
