/** What any request body can break before a rule is looked at: malformed JSON, size, media type, structural limits (src/http/json-limits.ts). */
export const bodyErrorCodes = [
  'parse_error',
  'payload_too_large',
  'unsupported_media_type',
  'nesting_too_deep',
  'array_too_long',
  'string_too_long',
  'number_out_of_range',
  'number_precision_lost',
  'invalid_unicode',
] as const;

/** What the Idempotency-Key handling answers on its own (src/http/idempotency.ts). */
export const idempotencyErrorCodes = [
  'invalid_idempotency_key',
  'idempotency_key_in_progress',
  'idempotency_response_lost',
  'idempotency_key_reused',
] as const;

/**
 * Every top-level machine code a `DomainError` can carry (docs/errors.md), so a misspelt code does not
 * compile. The domain owns the list; each edge maps it (src/answers/errors.ts to HTTP statuses with
 * `satisfies Record<ErrorCode, ...>`, the CLI, GraphQL's `extensions.code`), which keeps deciders free of
 * HTTP. Field-level item codes (`errors[].code`) are an open vocabulary, partly zod's: they stay strings.
 */
export const errorCodes = [
  // The request itself (src/http).
  'not_found',
  'method_not_allowed',
  'validation_error',
  /** A request header or parameter (Last-Event-ID) that is not valid: DRF's field code, used top-level. */
  'invalid',
  'invalid_query_parameter',
  'throttled',
  'concurrency_conflict',
  'internal_error',
  ...bodyErrorCodes,
  ...idempotencyErrorCodes,
  // Tokens and keys.
  'not_authenticated',
  'authentication_failed',
  'permission_denied',
  /** obtainToken without exactly one of APIKey or refreshToken (GraphQL `extensions.code`). */
  'invalid_input',
  // Account import processes.
  'account_failed_validation',
  'account_import_process_already_imported',
  'account_marked_to_skip',
  'import_supplier_migration_not_ongoing',
  'operations_team_name_does_not_exist',
  'dry_run_rollback',
  'import_process_does_not_exist',
  'account_not_found',
  // v2 accounts: the platform's codes for scheduling an account's creation.
  'import_process_failed_validation',
  'schedule_window_start_in_past',
  'schedule_window_end_too_far_in_future',
  /** Sic: the platform's code, with its double underscore. */
  'schedule_window_start__after_end',
  'operations_team_should_be_provided',
  // Products (spec 2.5, 4.3).
  'product_failed_validation',
  'no_matching_rate',
  'rate_not_continuous',
  // Businesses.
  'business_failed_validation',
  'business_already_exists',
  /** business-contracts/create/, business-payment-instruction/create/: no such business. */
  'business_not_found',
  // Supply point population.
  'populate_batch_not_found',
  // After import: notes, transactions (TransactionImportError's codes too), historical statements.
  'notes_failed_validation',
  'transactions_failed_validation',
  'transaction_not_in_open_statement_period',
  'transaction_already_added',
  'historical_statements_failed_validation',
  // Payment instructions (docs/payment-instructions-and-emails.md).
  'invalid_vendor',
  'payment_instruction_rejected',
  'payment_vendor_unavailable',
  // Webhook endpoints (docs/webhooks.md).
  'webhook_endpoint_not_found',
  'webhook_endpoint_limit_reached',
  /** A URL the delivery rules refuse: not https, not a public address (items name which). */
  'webhook_url_refused',
  // The store cannot take a write now (writers' lock wait, unknown COMMIT outcome, an older instance): retry.
  'store_unavailable',
  // The instance is still starting (migrations, start-up projection rebuilds): retry, or let the load balancer pick another.
  'service_starting',
  // Operator commands (the CLI prints them and exits 1).
  'import_supplier_already_exists',
  'import_supplier_not_found',
  'invalid_import_supplier_code',
  'operations_team_already_exists',
  'invalid_operations_team_name',
  'api_key_already_exists',
  'api_key_not_found',
  'api_key_requires_supplier',
  'account_not_imported',
  'invalid_transfer_status_transition',
  'invalid_config_value',
  /** account cancel-creation: nothing scheduled that has not run yet. */
  'account_creation_not_scheduled',
  // Between workers and the store: a claim or lease no longer held, a batch id taken. Never answered.
  'populate_batch_already_exists',
  'populate_request_finished',
  'populate_request_claimed',
  'populate_request_not_due',
  'populate_claim_lost',
  'customer_email_not_found',
  'customer_email_finished',
  'customer_email_claimed',
  'customer_email_not_due',
  'customer_email_claim_lost',
  'account_creation_not_due',
  'account_creation_claimed',
  'account_creation_claim_lost',
  'webhook_endpoint_already_exists',
] as const;

/** A top-level machine code of a `DomainError`. */
export type ErrorCode = (typeof errorCodes)[number];
