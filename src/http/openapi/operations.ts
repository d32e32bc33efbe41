import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { processAccountResponseSchema, stageAccountResponseSchema } from '../../answers/account-import-processes.js';
import {
  createHistoricalStatementsResponseSchema,
  createNotesResponseSchema,
  createTransactionsResponseSchema,
} from '../../answers/account-records.js';
import { createBusinessContractsResponseSchema, createBusinessResponseSchema } from '../../answers/businesses.js';
import { transactionImportErrorBodySchema } from '../../answers/errors.js';
import { createBusinessPaymentInstructionResponseSchema, createPaymentInstructionResponseSchema } from '../../answers/payment-instructions.js';
import { createProductsResponseSchema } from '../../answers/products.js';
import { populateSupplyPointsResponseSchema } from '../../answers/supply-point-populate.js';
import type { ErrorCode } from '../../domain/error-codes.js';
import { accountHistoryAsOfResponseSchema, accountHistoryQuerySchema, accountHistoryResponseSchema } from '../routes/account-history.js';
import {
  processAccountRequestSchema,
  stageAccountRequestSchema,
  validateAccountRequestSchema,
  validateAccountResponseSchema,
} from '../routes/account-import-processes.js';
import {
  DEFAULT_FAILURES_LIMIT,
  importFailureSummaryQuerySchema,
  importFailureSummaryResponseSchema,
  importFailuresQuerySchema,
  importFailuresResponseSchema,
  importProgressResponseSchema,
  importSuppliersResponseSchema,
  MAX_FAILURES_LIMIT,
} from '../routes/import-progress.js';
import {
  accountTransferStatusResponseSchema,
  allAccountImportProcessesResponseSchema,
  importedAccountImportProcessesResponseSchema,
  pendingAccountImportProcessesResponseSchema,
} from '../routes/account-status.js';
import { accountRecordsOneSchema } from '../../export/account-records-export.js';
import { accountRecordsQuerySchema } from '../routes/account-records-export.js';
import { businessReadResponseSchema, productReadResponseSchema } from '../routes/catalogue-reads.js';
import { recordVerificationRequestSchema } from '../routes/verifications.js';
import { recordVerificationResponseSchema } from '../../answers/verifications.js';
import { createBusinessContractsRequestSchema, createBusinessRequestSchema } from '../routes/businesses.js';
import { eventsFeedQuerySchema, eventsFeedResponseSchema } from '../routes/events-feed.js';
import {
  businessPaymentInstructionErrorBodySchema,
  createBusinessPaymentInstructionRequestSchema,
  createPaymentInstructionRequestSchema,
  paymentInstructionErrorBodySchema,
} from '../routes/payment-instructions.js';
import { productsRequestSchema, validateProductsResponseSchema } from '../routes/products.js';
import { populateBatchStatusResponseSchema, populateSupplyPointsRequestSchema } from '../routes/supply-point-populate.js';
import { transactionQueryParameters } from '../routes/account-records.js';
import { importTransactionsRequestSchema } from '../../domain/ledger/transaction-payload.js';
import { importNotesRequestSchema } from '../../domain/notes/note-payload.js';
import { importHistoricalStatementsRequestSchema } from '../../domain/statements/statement-payload.js';
import { accountImportStatusResponseSchema, taskParamsSchema } from '../routes/v2-accounts.js';
import { accountPayloadSchema } from '../../domain/account-import-process/account-payload.js';
import { AUTHENTICATED_ERRORS, scoped, WRITE_ERRORS, type Responses, type Schemas } from './common.js';

/** One operation's description: what the route itself cannot say. */
export interface OperationDoc {
  readonly method: 'get' | 'post';
  /** Hono syntax, as the route is registered (`:supplier`). */
  readonly path: string;
  readonly operationId: string;
  readonly tags: readonly string[];
  readonly summary: string;
  readonly description: string;
  readonly request?: OpenAPIV3_1.RequestBodyObject;
  readonly query?: z.ZodObject;
  readonly responses: Responses;
  readonly errors: readonly ErrorCode[];
  readonly errorBodies?: Record<string, OpenAPIV3_1.SchemaObject>;
  /** Example files (test/fixtures/examples, copies of the spec's) for the request body. */
  readonly examples?: readonly string[];
}

const V1 = '/v1/data-import';
const V2 = '/v2/data-import';
const ORDER =
  'Checks run in this order: authentication (401), the request rate (429), the body (415, 413, 400 `parse_error` and the structural limits), ' +
  'the `Idempotency-Key` header when one is sent (400 malformed, 409 still in progress, 422 reused with another request; a replay is answered here), ' +
  "the key's scope (403, before any detail of the payload), then the payload and the rules (400).";
const WRITE = 'A write: atomic (all its events and read models in one transaction, or nothing), and with an `Idempotency-Key` header a retry answers the stored response instead of writing twice.';

const list = (which: string) =>
  `The ${which} accounts of the supplier (spec 2.7), streamed in constant memory whatever their number. \`?limit=\` (1 to 1000) and \`?after=\` page it; the next page's address comes in the \`Link\` header.`;

/** Each list's own exported schema (today the same item shape), so none of them is exported unused. */
const LIST_SCHEMAS = {
  all: allAccountImportProcessesResponseSchema,
  pending: pendingAccountImportProcessesResponseSchema,
  imported: importedAccountImportProcessesResponseSchema,
} as const;

const listQuery = z.object({ limit: z.string().optional(), after: z.string().optional() });

/** The platform's two flags on transactions/create/: exactly `true` (the default) or `false`, at most once (else 400 `invalid_query_parameter`). */
const transactionsQuery = z.object({
  check_previously_added: z
    .enum(['true', 'false'])
    .default('true')
    .describe('A `transaction_id` already on the account: `true` skips it (`TRANSACTION_ALREADY_EXISTS`), `false` fails the request (`transaction_already_added`).'),
  force_add_to_current_statement: z
    .enum(['true', 'false'])
    .default('true')
    .describe('A transaction dated before the open statement period: `true` moves it to the period\'s first day (with a pinned note), `false` fails the request (`transaction_not_in_open_statement_period`).'),
} satisfies Record<(typeof transactionQueryParameters)[number], z.ZodType>);

/** The description of every operation under `/v1/data-import/`, its schemas converted by `schemas`. */
export function operationDocs(schemas: Schemas): OperationDoc[] {
  const jsonRequest = schemas.request.bind(schemas);
  const jsonAnswer = schemas.answer.bind(schemas);
  const jsonSchema = schemas.json.bind(schemas);
  return [
  {
    method: 'post', path: `${V1}/validate-account/`, operationId: 'validateAccount', tags: ['Accounts'],
    summary: 'Validate an account', description: `Checks an account payload (spec 2.2, 4.6) without storing anything; 200 echoes the validated data. ${ORDER}`,
    request: jsonRequest(validateAccountRequestSchema, 'The account (spec 2.2).'),
    responses: { 200: jsonAnswer(validateAccountResponseSchema, 'Valid: the data as it would be stored (unknown fields dropped).') },
    errors: scoped(...WRITE_ERRORS, 'account_failed_validation'),
    examples: ['account-domestic.json', 'account-business.json'],
  },
  {
    method: 'post', path: `${V1}/account-import-process/create-or-update/`, operationId: 'stageAccount', tags: ['Accounts'],
    summary: 'Stage an account', description: `Stages an account's data (spec 4.7): 201 the first time, 200 when it replaces staged data. ${ORDER} ${WRITE}`,
    request: jsonRequest(stageAccountRequestSchema, 'The account (spec 2.2).'),
    responses: {
      201: jsonAnswer(stageAccountResponseSchema, 'Staged for the first time.'),
      200: jsonAnswer(stageAccountResponseSchema, 'Staged data replaced.'),
    },
    errors: scoped(...WRITE_ERRORS, 'account_failed_validation', 'account_import_process_already_imported', 'account_marked_to_skip', 'import_supplier_migration_not_ongoing', 'import_supplier_not_found'),
    examples: ['account-domestic.json', 'account-business.json'],
  },
  {
    method: 'post', path: `${V1}/account-import-process/process/`, operationId: 'processAccount', tags: ['Accounts'],
    summary: 'Process a staged account', description: `Creates the platform account from the staged data (spec 4.8). With \`dry_run: true\` everything is decided and rolled back (400 \`dry_run_rollback\` when it would succeed). Before any check, the request takes one of the instance's processing slots (429 \`throttled\` with \`Retry-After\` when none is free). ${ORDER} ${WRITE}`,
    request: jsonRequest(processAccountRequestSchema, 'Which staged account, and the operations team.'),
    responses: { 201: jsonAnswer(processAccountResponseSchema, 'Imported.') },
    errors: scoped(...WRITE_ERRORS, 'validation_error', 'account_failed_validation', 'account_import_process_already_imported', 'account_marked_to_skip', 'import_supplier_migration_not_ongoing', 'import_supplier_not_found', 'operations_team_should_be_provided', 'operations_team_name_does_not_exist', 'dry_run_rollback', 'import_process_does_not_exist'),
    examples: ['process.json'],
  },
  {
    method: 'get', path: `${V1}/account-transfer-status/:supplier/:ext/`, operationId: 'accountTransferStatus', tags: ['Accounts'],
    summary: "An account's transfer status", description: 'Spec 4.13: `UNKNOWN` until the account is imported.',
    responses: { 200: jsonAnswer(accountTransferStatusResponseSchema, 'The status.') },
    errors: scoped('account_not_found'),
  },
  ...(['all', 'pending', 'imported'] as const).map(
    (which): OperationDoc => ({
      method: 'get', path: `${V1}/${which}-account-import-processes/:supplier/`, operationId: `${which}AccountImportProcesses`, tags: ['Accounts'],
      summary: `${which[0]!.toUpperCase()}${which.slice(1)} accounts of a supplier`, description: list(which),
      query: listQuery,
      responses: { 200: jsonAnswer(LIST_SCHEMAS[which], 'The accounts, oldest first.') },
      errors: scoped('invalid_query_parameter'),
    }),
  ),
  {
    method: 'get', path: `${V1}/import-suppliers/`, operationId: 'importSuppliers', tags: ['Progress'],
    summary: "The key's suppliers", description: 'The import suppliers the caller\'s key is scoped to, with their migration status (beyond the spec).',
    responses: { 200: jsonAnswer(importSuppliersResponseSchema, 'The suppliers, by code.') },
    errors: [...AUTHENTICATED_ERRORS],
  },
  {
    method: 'get', path: `${V1}/import-progress/:supplier/`, operationId: 'importProgress', tags: ['Progress'],
    summary: "A supplier's migration progress",
    description: 'Accounts per state (`failing`: not imported, latest stage or process refused; a part of `pending`), imported accounts per transfer status, imports per minute over the last hour, and when the migration started and last moved; `feed_position` is the event feed\'s position when it was read (follow `GET events/` from there for what comes next). Read from counters kept inline (one row), whatever the number of accounts.',
    responses: { 200: jsonAnswer(importProgressResponseSchema, 'The progress.') },
    errors: scoped(),
  },
  {
    method: 'get', path: `${V1}/import-failures/:supplier/`, operationId: 'importFailures', tags: ['Progress'],
    summary: "A supplier's failing accounts",
    description: `Each failing account with its latest refusal (step, top-level code, error items' codes and paths, when), newest first. \`?code=\` keeps those whose refusal has that code (top-level or an item's). \`?limit=\` (1 to ${MAX_FAILURES_LIMIT}, default ${DEFAULT_FAILURES_LIMIT}) and \`?after=\` page it; the next page's address comes in the \`Link\` header. An account leaves the list when a later attempt succeeds.`,
    query: importFailuresQuerySchema,
    responses: { 200: jsonAnswer(importFailuresResponseSchema, 'The failing accounts, newest failure first.') },
    errors: scoped('invalid_query_parameter'),
  },
  {
    method: 'get', path: `${V1}/import-failures/:supplier/summary/`, operationId: 'importFailureSummary', tags: ['Progress'],
    summary: "What a supplier's failing accounts fail on",
    description: `Per error code and \`attr\` path (null: none), the number of failing accounts whose latest refusal has it, most first (a refusal without items counts under its top-level code). At most \`?limit=\` rows (1 to ${MAX_FAILURES_LIMIT}, default ${DEFAULT_FAILURES_LIMIT}).`,
    query: importFailureSummaryQuerySchema,
    responses: { 200: jsonAnswer(importFailureSummaryResponseSchema, 'The counts, largest first.') },
    errors: scoped('invalid_query_parameter'),
  },
  {
    method: 'get', path: `${V1}/reconciliation/:supplier/`, operationId: 'reconciliationExport', tags: ['Accounts'],
    summary: 'The cut-over check', description: 'One record per account of the supplier, streamed: CSV with `?format=csv` or `Accept: text/csv`, NDJSON otherwise.',
    query: z.object({ format: z.enum(['csv', 'ndjson']).optional() }),
    responses: {
      200: {
        description: 'One line per account.',
        content: { 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'string' } } },
      },
    },
    errors: scoped('invalid_query_parameter'),
  },
  {
    method: 'get', path: `${V1}/account-records/:supplier/`, operationId: 'accountRecordsExport', tags: ['Accounts'],
    summary: 'The records export', description: 'One NDJSON line per account of the supplier, streamed in the lists\' order: its state, ledger balance in cents, and per kind of record (notes, transactions, historical statements, payment instructions) a count and an order-independent digest (SHA-256 of the records\' sorted lines); `?include=records` adds the records. What `import-ledger verify` compares a migration folder with (docs/migrate.md).',
    query: accountRecordsQuerySchema,
    responses: { 200: { description: 'One line per account (the shape of `accountRecordsOne`, `records` only with `?include=records`).', content: { 'application/x-ndjson': { schema: { type: 'string' } } } } },
    errors: scoped('invalid_query_parameter'),
  },
  {
    method: 'get', path: `${V1}/account-record/:supplier/:ext/`, operationId: 'accountRecordsOne', tags: ['Accounts'],
    summary: "An account's records, as verify compares them", description: 'The line of the records export for one account, with its records.',
    responses: { 200: jsonAnswer(accountRecordsOneSchema, 'The account and its records.') },
    errors: scoped('account_not_found'),
  },
  {
    method: 'get', path: `${V1}/products/:code/`, operationId: 'readProduct', tags: ['Products'],
    summary: 'A product and its rates', description: 'The product as stored: each rate with its band key, its period (`valid_to` as the continuity rule closed it, null while the latest of its band) and its price. The shared catalogue: any valid token reads it.',
    responses: { 200: jsonAnswer(productReadResponseSchema, 'The product.') },
    errors: [...AUTHENTICATED_ERRORS, 'not_found'],
  },
  {
    method: 'get', path: `${V1}/business/:supplier/:ext/`, operationId: 'readBusiness', tags: ['Businesses'],
    summary: 'A business and its contracts', description: 'The business as stored, with its contracts\' identifiers.',
    responses: { 200: jsonAnswer(businessReadResponseSchema, 'The business.') },
    errors: scoped('business_not_found'),
  },
  {
    method: 'get', path: `${V1}/account-history/:supplier/:ext/`, operationId: 'accountHistory', tags: ['Audit'],
    summary: "An account's history", description: 'A page of the events of the account\'s streams, oldest first; with `as_of`, its state at that instant and the events recorded by then.',
    query: accountHistoryQuerySchema,
    responses: {
      200: {
        description: 'The events (and, with `as_of`, the state then).',
        content: { 'application/json': { schema: { oneOf: [jsonSchema(accountHistoryResponseSchema, 'output'), jsonSchema(accountHistoryAsOfResponseSchema, 'output')] } } },
      },
    },
    errors: scoped('invalid_query_parameter', 'account_not_found'),
  },
  {
    method: 'get', path: `${V1}/events/`, operationId: 'eventsFeed', tags: ['Audit'],
    summary: 'The integration event feed', description: 'The events of the caller\'s suppliers after a position, as JSON pages or (with `Accept: text/event-stream`) a live SSE stream resumable with `Last-Event-ID`. The stream checks its credential again at least every 5 s and on every new event: once the key is revoked or the token expires it ends with a final `event: error` whose data is the 401 `authentication_failed` error body, and the reconnect is answered 401.',
    query: eventsFeedQuerySchema,
    responses: {
      200: {
        ...jsonAnswer(eventsFeedResponseSchema, 'A page of events, or the live stream.'),
        content: { ...jsonAnswer(eventsFeedResponseSchema, '').content, 'text/event-stream': { schema: { type: 'string' } } },
      },
    },
    errors: [...scoped('invalid_query_parameter', 'invalid')],
  },
  {
    method: 'post', path: `${V1}/business/`, operationId: 'createBusiness', tags: ['Businesses'],
    summary: 'Create a business', description: `A business with its contracts (spec 2.4, 4.4). ${WRITE}`,
    request: jsonRequest(createBusinessRequestSchema, 'The business (spec 2.4).'),
    responses: { 201: jsonAnswer(createBusinessResponseSchema, 'Created, or already created with the same key attributes (spec 2.4).') },
    errors: scoped(...WRITE_ERRORS, 'business_failed_validation', 'business_already_exists', 'import_supplier_not_found'),
    examples: ['business.json'],
  },
  {
    method: 'post', path: `${V1}/validate-products/`, operationId: 'validateProducts', tags: ['Products'],
    summary: 'Validate products', description: 'Checks products (spec 2.5) without storing anything.',
    request: jsonRequest(productsRequestSchema, 'The products (spec 2.5).'),
    responses: { 200: jsonAnswer(validateProductsResponseSchema, 'Valid: the products as they would be stored.') },
    errors: [...scoped(...WRITE_ERRORS, 'product_failed_validation', 'no_matching_rate', 'rate_not_continuous')],
    examples: ['products.json'],
  },
  {
    method: 'post', path: `${V1}/products/`, operationId: 'createProducts', tags: ['Products'],
    summary: 'Create products, or add rates', description: `Creates products, or appends rates to existing ones (spec 4.3). ${WRITE}`,
    request: jsonRequest(productsRequestSchema, 'The products (spec 2.5).'),
    responses: { 201: jsonAnswer(createProductsResponseSchema, 'Created or updated.') },
    errors: [...scoped(...WRITE_ERRORS, 'product_failed_validation', 'no_matching_rate', 'rate_not_continuous')],
    examples: ['products.json', 'product-rate-update.json'],
  },
  {
    method: 'post', path: `${V1}/supply-point/populate/`, operationId: 'populateSupplyPoints', tags: ['Supply points'],
    summary: 'Pre-populate supply points', description: `Records a batch of supply point ids to fetch from the network operators; a worker calls them (201 at once). ${WRITE}`,
    request: jsonRequest(populateSupplyPointsRequestSchema, 'The ids to fetch.'),
    responses: { 201: jsonAnswer(populateSupplyPointsResponseSchema, 'The batch, recorded.') },
    errors: scoped(...WRITE_ERRORS, 'validation_error', 'import_supplier_not_found'),
    examples: ['supply-point-populate.json'],
  },
  {
    method: 'get', path: `${V1}/supply-point/populate/:batchId/`, operationId: 'populateBatchStatus', tags: ['Supply points'],
    summary: "A populate batch's status", description: 'What was fetched, what waits, what failed and why.',
    responses: { 200: jsonAnswer(populateBatchStatusResponseSchema, 'The batch.') },
    errors: scoped('populate_batch_not_found'),
  },
  {
    method: 'post', path: `${V1}/notes/create/`, operationId: 'createNotes', tags: ['After import'],
    summary: "Add notes to an imported account", description: `Spec 4.9. A note already added is not added twice. ${WRITE}`,
    request: jsonRequest(importNotesRequestSchema, 'The notes.'),
    responses: { 201: jsonAnswer(createNotesResponseSchema, 'One result per note.') },
    errors: scoped(...WRITE_ERRORS, 'notes_failed_validation', 'account_not_found', 'import_supplier_not_found', 'import_supplier_migration_not_ongoing'),
    examples: ['notes.json'],
  },
  {
    method: 'post', path: `${V1}/transactions/create/`, operationId: 'createTransactions', tags: ['After import'],
    summary: 'Add financial transactions to an imported account', description: `Spec 4.10. The first transaction a ledger rule refuses is answered with the TRANSACTION_IMPORT_ERROR body. ${WRITE}`,
    request: jsonRequest(importTransactionsRequestSchema, 'The transactions.'),
    query: transactionsQuery,
    responses: { 201: jsonAnswer(createTransactionsResponseSchema, 'One result per transaction.') },
    errors: scoped(...WRITE_ERRORS, 'transactions_failed_validation', 'invalid_query_parameter', 'account_not_found', 'import_supplier_not_found', 'import_supplier_migration_not_ongoing'),
    errorBodies: { 400: jsonSchema(transactionImportErrorBodySchema, 'output') },
    examples: ['transactions.json'],
  },
  {
    method: 'post', path: `${V1}/historical-statements/create/`, operationId: 'createHistoricalStatements', tags: ['After import'],
    summary: 'Add historical statements to an imported account', description: `Spec 4.11. ${WRITE}`,
    request: jsonRequest(importHistoricalStatementsRequestSchema, 'The statements.'),
    responses: { 201: jsonAnswer(createHistoricalStatementsResponseSchema, 'Added.') },
    errors: scoped(...WRITE_ERRORS, 'historical_statements_failed_validation', 'account_not_found', 'import_supplier_not_found', 'import_supplier_migration_not_ongoing'),
    examples: ['historical-statements.json'],
  },
  {
    method: 'post', path: `${V1}/payment-instruction/create/`, operationId: 'createPaymentInstruction', tags: ['After import'],
    summary: 'Add a payment instruction to an imported account', description: `Spec 4.12: checked with the payment vendor first. A 500 \`payment_vendor_unavailable\` may be retried as is; a 400 must not. ${WRITE}`,
    request: jsonRequest(createPaymentInstructionRequestSchema, 'The payment instruction.'),
    responses: { 201: jsonAnswer(createPaymentInstructionResponseSchema, 'Added.') },
    errors: scoped(...WRITE_ERRORS, 'validation_error', 'account_not_found', 'import_supplier_migration_not_ongoing', 'invalid_vendor', 'payment_instruction_rejected', 'payment_vendor_unavailable'),
    // The vendor's refusals (400) and failures (500) carry the platform's four fields besides spec 7's.
    errorBodies: { 400: jsonSchema(paymentInstructionErrorBodySchema, 'output'), 500: jsonSchema(paymentInstructionErrorBodySchema, 'output') },
    examples: ['payment-instruction.json'],
  },
  {
    method: 'post', path: `${V1}/verifications/`, operationId: 'recordVerification', tags: ['Audit'],
    summary: 'Record a verification', description: `What \`import-ledger verify\` found (whether the folder and the service agree, counts per kind of item), recorded on the supplier's stream: the last one is \`last_verification\` of the import progress (the dashboard), every one is in the supplier's history. ${WRITE}`,
    request: jsonRequest(recordVerificationRequestSchema, 'The verification.'),
    responses: { 201: jsonAnswer(recordVerificationResponseSchema, 'Recorded.') },
    errors: scoped(...WRITE_ERRORS, 'validation_error', 'import_supplier_not_found'),
  },
  {
    method: 'post', path: `${V1}/business-contracts/create/`, operationId: 'createBusinessContracts', tags: ['Businesses'],
    summary: 'Add contracts to a business', description: `Contracts added to an existing business (the platform's French tenants); accounts can then link to them. ${WRITE}`,
    request: jsonRequest(createBusinessContractsRequestSchema, 'The business and its new contracts.'),
    responses: { 201: jsonAnswer(createBusinessContractsResponseSchema, 'Added.') },
    errors: scoped(...WRITE_ERRORS, 'business_failed_validation', 'business_not_found', 'import_supplier_not_found', 'import_supplier_migration_not_ongoing'),
  },
  {
    method: 'post', path: `${V1}/business-payment-instruction/create/`, operationId: 'createBusinessPaymentInstruction', tags: ['Businesses'],
    summary: 'Add a payment instruction to a business', description: `Checked with the payment vendor first, as the account one. A 500 \`payment_vendor_unavailable\` may be retried as is; a 400 must not. ${WRITE}`,
    request: jsonRequest(createBusinessPaymentInstructionRequestSchema, 'The payment instruction and the accounts it covers.'),
    responses: { 201: jsonAnswer(createBusinessPaymentInstructionResponseSchema, 'Added (or already added with this reference).') },
    errors: scoped(...WRITE_ERRORS, 'validation_error', 'business_not_found', 'account_not_found', 'import_supplier_not_found', 'import_supplier_migration_not_ongoing', 'invalid_vendor', 'payment_instruction_rejected', 'payment_vendor_unavailable'),
    errorBodies: { 400: jsonSchema(businessPaymentInstructionErrorBodySchema, 'output'), 500: jsonSchema(businessPaymentInstructionErrorBodySchema, 'output') },
  },
  {
    method: 'post', path: `${V2}/accounts/validate/`, operationId: 'v2ValidateAccount', tags: ['Accounts (v2)'],
    summary: 'Validate an account (v2)', description: `The account under \`payload\`; 200 \`{}\` when valid. ${ORDER}`,
    request: jsonRequest(z.object({ payload: accountPayloadSchema }), 'The account (spec 2.2) under `payload`.'),
    responses: { 200: jsonAnswer(z.object({}), 'Valid.') },
    errors: scoped(...WRITE_ERRORS, 'validation_error', 'account_failed_validation'),
  },
  {
    method: 'post', path: `${V2}/accounts/`, operationId: 'v2ScheduleAccountCreation', tags: ['Accounts (v2)'],
    summary: "Stage an account and schedule its creation (v2)", description: `Stages the account and schedules its creation inside \`task_params\`' window (at once without one; the window may not start in the past or end more than 4 days ahead). The team comes from the payload, else the supplier's default. ${WRITE}`,
    request: jsonRequest(z.object({ payload: accountPayloadSchema, task_params: taskParamsSchema }), 'The account under `payload`, and when to create it.'),
    responses: { 201: jsonAnswer(z.object({}), 'Staged and scheduled.') },
    errors: scoped(
      ...WRITE_ERRORS, 'validation_error', 'import_process_failed_validation', 'account_import_process_already_imported', 'account_marked_to_skip',
      'import_supplier_migration_not_ongoing', 'import_supplier_not_found', 'schedule_window_start_in_past', 'schedule_window_end_too_far_in_future',
      'schedule_window_start__after_end', 'operations_team_should_be_provided', 'operations_team_name_does_not_exist',
    ),
  },
  {
    method: 'get', path: `${V2}/accounts/:supplier/:ext/`, operationId: 'v2AccountImportStatus', tags: ['Accounts (v2)'],
    summary: "An account's import status (v2)", description: 'The platform\'s statuses, the latest event and the latest error; v1-staged accounts too.',
    responses: { 200: jsonAnswer(accountImportStatusResponseSchema, 'The status.') },
    errors: scoped('not_found'),
  },
];
}
