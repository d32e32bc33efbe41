import { zValidator } from '@hono/zod-validator';
import type { z } from 'zod';
import type { ErrorCode } from '../domain/error-codes.js';
import { validationError } from './errors.js';

/**
 * Validates the (already parsed) JSON body against a route's request schema.
 * Issues are reported with their input so that `required`, `null` and
 * `invalid` can be told apart. A body that does not match is thrown as a
 * DomainError, answered by `app.onError`.
 */
export function jsonBody<T extends z.ZodType>(schema: T, code: ErrorCode = 'validation_error', detail = 'Invalid input.') {
  return zValidator(
    'json',
    schema,
    (result) => {
      if (!result.success) throw validationError(result.error.issues, code, detail);
      return undefined;
    },
    // zod-validator types the result loosely; the parse is the schema's own.
    { validationFunction: (s, value) => s.safeParseAsync(value, { reportInput: true }) as never },
  );
}
