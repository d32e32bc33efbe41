import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z, type core } from 'zod';
import { DomainError, type FieldError } from '../domain/errors.js';
import { TRANSACTION_IMPORT_ERROR, TransactionImportError } from '../domain/ledger/transaction-import-error.js';
import { fieldErrorsFromIssues } from '../domain/validation/field-errors.js';
import { ConcurrencyError } from '../store/event-store.js';

/** The error body of spec section 7, for the OpenAPI document: every 4xx answer has this shape. */
export const errorBodySchema = z
  .object({
    detail: z.string(),
    code: z.string(),
    errors: z.array(z.object({ detail: z.string(), code: z.string(), attr: z.string().nullable() })),
  })
  .catchall(z.unknown());

/** The error body of spec section 7. */
export interface ErrorBody {
  readonly detail: string;
  readonly code: string;
  readonly errors: readonly FieldError[];
  readonly [extra: string]: unknown;
}

/**
 * The one place where error codes become HTTP statuses. Every code not listed
 * is a validation or business-rule failure: 400.
 */
const statusByCode: Readonly<Record<string, ContentfulStatusCode>> = {
  not_authenticated: 401,
  authentication_failed: 401,
  permission_denied: 403,
  not_found: 404,
  account_not_found: 404,
  import_process_does_not_exist: 404,
  populate_batch_not_found: 404,
  method_not_allowed: 405,
  concurrency_conflict: 409,
  idempotency_key_in_progress: 409,
  idempotency_response_lost: 409,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  throttled: 429,
  internal_error: 500,
  // Spec 4.12: an intermittent payment-vendor failure is a 500 the caller retries as is.
  payment_vendor_unavailable: 500,
};

export function statusOf(code: string): ContentfulStatusCode {
  return statusByCode[code] ?? 400;
}

export function errorBody(error: DomainError): ErrorBody {
  return { detail: error.detail, code: error.code, errors: error.errors, ...error.extra };
}

/**
 * Spec 4.10 and 7.4: a ledger rule broken by one transaction is answered with
 * this distinct body instead of spec 7's, naming the first failing
 * transaction; `code` is the stable machine code (docs/account-records.md).
 */
export const transactionImportErrorBodySchema = z.object({
  status: z.literal(TRANSACTION_IMPORT_ERROR),
  error_detail: z.string(),
  transaction_data: z.record(z.string(), z.unknown()),
  code: z.string(),
});

export function transactionImportErrorBody(error: TransactionImportError): z.infer<typeof transactionImportErrorBodySchema> {
  return { status: TRANSACTION_IMPORT_ERROR, error_detail: error.detail, transaction_data: { ...error.transactionData }, code: error.code };
}

/** Responds with a DomainError in the spec's shape and the status its code maps to. */
export function errorResponse(c: Context, error: DomainError, headers?: Record<string, string>): Response {
  const status = statusOf(error.code);
  if (status === 401) c.header('WWW-Authenticate', 'Token');
  for (const [name, value] of Object.entries(headers ?? {})) c.header(name, value);
  return c.json(error instanceof TransactionImportError ? transactionImportErrorBody(error) : errorBody(error), status);
}

/** zod issues of a request body become one 400 with a top-level code. */
export function validationError(issues: readonly core.$ZodIssue[], code = 'validation_error', detail = 'Invalid input.'): DomainError {
  return new DomainError(code, detail, { errors: fieldErrorsFromIssues(issues) });
}

/** Maps anything thrown while handling a request; unknown errors become a 500 without internals. */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof ConcurrencyError) {
    return new DomainError('concurrency_conflict', 'The resource was changed concurrently; retry the request.');
  }
  if (error instanceof HTTPException) {
    const code = error.status === 413 ? 'payload_too_large' : error.status === 415 ? 'unsupported_media_type' : 'parse_error';
    return new DomainError(code, error.message || 'Bad request.');
  }
  return new DomainError('internal_error', 'An unexpected error occurred.');
}
