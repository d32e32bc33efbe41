import type { Context } from 'hono';
import type { z } from 'zod';
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
