import type { Context } from 'hono';
import { z } from 'zod';
import { DomainError, type FieldError } from '../domain/errors.js';
import { fieldErrorsFromIssues } from '../domain/validation/field-errors.js';
import type { AppEnv } from './env.js';

/**
 * The one rule for query parameters on every route: a parameter the route reads is given at most
 * once and with a valid value, else 400 `invalid_query_parameter` naming it (attr); a parameter the
 * route does not read is ignored, as the platform does.
 */
export const invalidQuery = (errors: FieldError[]) => new DomainError('invalid_query_parameter', 'A query parameter is not valid.', { errors });

/** The one value of a query parameter given at most once; undefined when absent. */
export function singleQueryValue(c: Context<AppEnv>, name: string): string | undefined {
  const values = c.req.queries(name);
  if (values === undefined) return undefined;
  if (values.length !== 1) throw invalidQuery([{ detail: `${name} must be given at most once.`, code: 'invalid', attr: name }]);
  return values[0];
}

/** The query parameters `schema` names, each at most once, parsed by it. */
export function parseQuery<S extends z.ZodObject>(c: Context<AppEnv>, schema: S): z.output<S> {
  const given: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = singleQueryValue(c, name);
    if (value !== undefined) given[name] = value;
  }
  const parsed = schema.safeParse(given, { reportInput: true });
  if (!parsed.success) throw invalidQuery(fieldErrorsFromIssues(parsed.error.issues));
  return parsed.data;
}

/**
 * A whole number given by its digits in a query string, from `min` to `max` (`invalid` for anything but
 * digits, `min_value`, `max_value`): the document shows the integer it stands for, with its bounds.
 */
export function queryInteger(min: number, max: number) {
  return z
    .string()
    .regex(new RegExp(`^\\d{1,${String(max).length}}$`), `Expected a whole number from ${min} to ${max}.`)
    .transform(Number)
    .pipe(z.int().min(min).max(max));
}

/**
 * An opaque cursor of a list's `Link` header, read by `decode` (null: not one of this list's cursors,
 * `invalid`). The document shows its form; that it must come from a Link header is said in its description.
 */
export function queryCursor<T>(form: RegExp, decode: (cursor: string) => T | null) {
  const refused = 'after must be a cursor given by a Link header of this list.';
  return z
    .string()
    .regex(form, refused)
    .describe('The cursor of a `Link` header of this list, passed back as given; any other value is refused (`invalid`).')
    .transform((cursor, ctx) => {
      const position = decode(cursor);
      if (position === null) ctx.addIssue({ code: 'custom', message: refused, input: cursor });
      return position ?? z.NEVER;
    });
}
