import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import type { ErrorCode } from '../domain/error-codes.js';
import type { DomainError, FieldError } from '../domain/errors.js';
import { TRANSACTION_IMPORT_ERROR, TransactionImportError } from '../domain/ledger/transaction-import-error.js';
import type { Answer } from './answer.js';

/** The error body of spec section 7. */
export interface ErrorBody {
  readonly detail: string;
  readonly code: string;
  readonly errors: readonly FieldError[];
  readonly [extra: string]: unknown;
}

/**
 * The one place where error codes become HTTP statuses, read by `app.onError` and the Idempotency-Key
 * recovery. `satisfies Record<ErrorCode, ...>` checks both ways: a code without a status, or a status for
 * no code, does not compile, so no code falls through to a default.
 */
const statusByCode = {
  // The request itself.
  not_found: 404,
  method_not_allowed: 405,
  parse_error: 400,
  validation_error: 400,
  invalid: 400,
  invalid_query_parameter: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  throttled: 429,
  concurrency_conflict: 409,
  internal_error: 500,
  nesting_too_deep: 400,
  array_too_long: 400,
  string_too_long: 400,
  number_out_of_range: 400,
  number_precision_lost: 400,
  invalid_unicode: 400,
  invalid_idempotency_key: 400,
  idempotency_key_in_progress: 409,
  idempotency_response_lost: 409,
  idempotency_key_reused: 422,
  // Tokens and keys.
  not_authenticated: 401,
  authentication_failed: 401,
  permission_denied: 403,
  invalid_input: 400,
  // Account import processes.
  account_failed_validation: 400,
  account_import_process_already_imported: 400,
  account_marked_to_skip: 400,
  import_supplier_migration_not_ongoing: 400,
  operations_team_name_does_not_exist: 400,
  dry_run_rollback: 400,
  // The platform documents only 201, 400 and 429 for process/, so a process of nothing staged is a 400.
  import_process_does_not_exist: 400,
  account_not_found: 404,
  import_process_failed_validation: 400,
  schedule_window_start_in_past: 400,
  schedule_window_end_too_far_in_future: 400,
  schedule_window_start__after_end: 400,
  operations_team_should_be_provided: 400,
  // Products, businesses, supply points.
  product_failed_validation: 400,
  no_matching_rate: 400,
  rate_not_continuous: 400,
  business_failed_validation: 400,
  business_already_exists: 400,
  business_not_found: 404,
  populate_batch_not_found: 404,
  // After import.
  notes_failed_validation: 400,
  transactions_failed_validation: 400,
  transaction_not_in_open_statement_period: 400,
  transaction_already_added: 400,
  historical_statements_failed_validation: 400,
  // Payment instructions. Spec 4.12: an intermittent payment-vendor failure is a 500 the caller retries as is.
  invalid_vendor: 400,
  payment_instruction_rejected: 400,
  payment_vendor_unavailable: 500,
  // Webhook endpoints: one of another supplier is not found, as one that does not exist.
  webhook_endpoint_not_found: 404,
  webhook_endpoint_limit_reached: 400,
  webhook_url_refused: 400,
  store_unavailable: 503,
  service_starting: 503,
  // Operator commands: the CLI's; over HTTP (import_supplier_not_found on stage) a broken rule, 400.
  import_supplier_already_exists: 400,
  import_supplier_not_found: 400,
  invalid_import_supplier_code: 400,
  operations_team_already_exists: 400,
  invalid_operations_team_name: 400,
  api_key_already_exists: 400,
  api_key_not_found: 400,
  api_key_requires_supplier: 400,
  account_not_imported: 400,
  invalid_transfer_status_transition: 400,
  invalid_config_value: 400,
  account_creation_not_scheduled: 400,
  // Between workers and the store: never answered over HTTP; 400 as every rule broken.
  populate_batch_already_exists: 400,
  populate_request_finished: 400,
  populate_request_claimed: 400,
  populate_request_not_due: 400,
  populate_claim_lost: 400,
  customer_email_not_found: 400,
  customer_email_finished: 400,
  customer_email_claimed: 400,
  customer_email_not_due: 400,
  customer_email_claim_lost: 400,
  account_creation_not_due: 400,
  account_creation_claimed: 400,
  account_creation_claim_lost: 400,
  webhook_endpoint_already_exists: 400,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

/**
 * The few operations where the platform documents another status for a code, by request path:
 * payment-instruction/create/ documents only 201, 400 and 500, so an account not imported is a 400 there.
 */
const statusOverridesByPath: Readonly<Record<string, Partial<Record<ErrorCode, ContentfulStatusCode>>>> = {
  '/v1/data-import/payment-instruction/create/': { account_not_found: 400 },
  // An account of the request's `accounts` that is not imported: a 400 about the body (the business itself is the 404).
  '/v1/data-import/business-payment-instruction/create/': { account_not_found: 400 },
};

/** The status a code is answered with (on `path`, when the operation has an override). */
export function statusOf(code: ErrorCode, path?: string): ContentfulStatusCode {
  return (path === undefined ? undefined : statusOverridesByPath[path]?.[code]) ?? statusByCode[code];
}

export function errorBody(error: DomainError): ErrorBody {
  return { detail: error.detail, code: error.code, errors: error.errors, ...error.extra };
}

/** Spec 4.10 and 7.4: a ledger rule broken by a transaction is answered with this body, naming the first failing one. */
export const transactionImportErrorBodySchema = z.object({
  status: z.literal(TRANSACTION_IMPORT_ERROR),
  error_detail: z.string(),
  transaction_data: z.record(z.string(), z.unknown()),
  code: z.string(),
});

export function transactionImportErrorBody(error: TransactionImportError): z.infer<typeof transactionImportErrorBodySchema> {
  return { status: TRANSACTION_IMPORT_ERROR, error_detail: error.detail, transaction_data: { ...error.transactionData }, code: error.code };
}

/** The answer to a DomainError: spec 7's body, or spec 4.10's for a transaction import error; for `app.onError` and the recovery. */
export function errorAnswer(error: DomainError, path?: string): Answer {
  return {
    status: statusOf(error.code, path),
    body: error instanceof TransactionImportError ? transactionImportErrorBody(error) : errorBody(error),
  };
}
