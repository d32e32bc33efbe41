import type { ErrorCode } from './error-codes.js';

/** The `attr` of a problem with the request as a whole (DRF's name); the platform's error body needs a string, never null. */
export const NON_FIELD_ERRORS = 'non_field_errors';

/** One field-level problem as the API reports it (spec 7): `attr` is the dot path into the input, zero-based. */
export interface FieldError {
  readonly detail: string;
  readonly code: string;
  readonly attr: string;
}

export interface DomainErrorOptions {
  /** Field-level errors; when absent the error itself becomes the single item. */
  readonly errors?: readonly FieldError[];
  /** Path of the offending input when the error concerns one field; `non_field_errors` when absent. */
  readonly attr?: string;
  /** Extra top-level body fields (e.g. platform_account_number on account_import_process_already_imported). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * A rule broken by the caller, with one of the documented codes of error-codes.ts; its HTTP status is chosen
 * in one place (src/answers/errors.ts). Deciders throw it; evolve functions and projections never do.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly errors: readonly FieldError[];
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, detail: string, options: DomainErrorOptions = {}) {
    super(detail);
    this.name = 'DomainError';
    this.code = code;
    this.errors = options.errors ?? [{ detail, code, attr: options.attr ?? NON_FIELD_ERRORS }];
    this.extra = options.extra ?? {};
  }

  get detail(): string {
    return this.message;
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
