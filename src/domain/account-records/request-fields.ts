import type { z } from 'zod';
import { requiredText } from '../account-import-process/payload-fields.js';
import type { FieldError } from '../errors.js';
import { fieldErrorsFromIssues } from '../validation/field-errors.js';

/** Most notes, transactions or statements one request may carry (spec 8.2 leaves array sizes open). */
export const MAX_RECORDS_PER_REQUEST = 1000;

/** The account a post-import request names (spec 4.9-4.11 call the supplier `import_supplier`). */
export const accountEnvelopeFields = {
  import_supplier: requiredText(),
  external_account_number: requiredText(128),
};

export type Validation<T> = { ok: true; data: T } | { ok: false; errors: FieldError[] };

/** Parses a request body; on failure every problem found is returned as a FieldError (spec 7). */
export function validateWith<S extends z.ZodType>(schema: S, input: unknown): Validation<z.output<S>> {
  const result = schema.safeParse(input, { reportInput: true });
  return result.success ? { ok: true, data: result.data } : { ok: false, errors: fieldErrorsFromIssues(result.error.issues) };
}
