import type { z } from 'zod';
import { validateWith, type Validation } from '../domain/validation/field-errors.js';
import { DomainError, type FieldError } from '../domain/errors.js';

/** A body the payload's rules refuse: `validation_error`, for a request schema of the route's own. */
export const invalidInput = (errors: readonly FieldError[]): DomainError => new DomainError('validation_error', 'Invalid input.', { errors });

/** A request schema as a payload validation (issues reported with their input, so `required`, `null` and `invalid` differ). */
export const bySchema =
  <S extends z.ZodType>(schema: S) =>
  (input: unknown): Validation<z.output<S>> =>
    validateWith(schema, input);

/**
 * The one way a route validates its body (or a part of it): the payload's
 * validate*() (the domain's, or `bySchema` for a request schema of the
 * route's own) on the body read once by json-body.ts, and `scopedBody` first
 * when the body names a supplier. A body that does not pass is thrown as
 * `failed(errors)` (the payload's *_failed_validation, or validation_error),
 * answered by `app.onError`.
 */
export function validated<T>(
  input: unknown,
  validate: (input: unknown) => Validation<T>,
  failed: (errors: readonly FieldError[]) => DomainError = invalidInput,
): T {
  const result = validate(input);
  if (!result.ok) throw failed(result.errors);
  return result.data;
}
