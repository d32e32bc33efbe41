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
import { accountImportProcessListResponseSchema, accountTransferStatusResponseSchema } from '../routes/account-status.js';
import { accountRecordsOneSchema } from '../../export/account-records-export.js';
import { reconciliationQuerySchema } from '../routes/reconciliation.js';
import { accountRecordsQuerySchema } from '../routes/account-records-export.js';
import { BUSINESS_PAYMENT_INSTRUCTIONS_PAGE, businessReadQuerySchema, businessReadResponseSchema, operationsTeamReadResponseSchema, productReadResponseSchema } from '../routes/catalogue-reads.js';
import { recordVerificationRequestSchema } from '../routes/verifications.js';
import { serviceIdentityResponseSchema } from '../routes/service-identity.js';
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
import { transactionsQuerySchema } from '../routes/account-records.js';
import { importTransactionsRequestSchema } from '../../domain/ledger/transaction-payload.js';
import { importNotesRequestSchema } from '../../domain/notes/note-payload.js';
import { importHistoricalStatementsRequestSchema } from '../../domain/statements/statement-payload.js';
import { accountImportStatusResponseSchema, taskParamsSchema } from '../routes/v2-accounts.js';
import { accountPayloadSchema } from '../../domain/account-import-process/account-payload.js';
import { listPagingQuerySchema, MAX_LIST_LIMIT } from '../list-paging.js';
import { ACCOUNT_RULES, BUSINESS_DETAIL_RULES, BUSINESS_INSTRUCTION_RULES, CONTRACT_RULES, NOTE_RULES, POPULATE_RULES, PRODUCT_RULES, STATEMENT_RULES, TRANSACTION_RULES } from './request-rules.js';
import { webhookOperations } from './webhook-operations.js';
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

/** A write for a supplier's migration: the supplier exists and its migration is under way. */
const MIGRATING = ['import_supplier_not_found', 'import_supplier_migration_not_ongoing'] as const satisfies readonly ErrorCode[];
/** Staging an account, whichever version: the account is neither imported nor to be skipped. */
const STAGEABLE = ['account_import_process_already_imported', 'account_marked_to_skip', ...MIGRATING] as const satisfies readonly ErrorCode[];
/** The account's team: named in the request, else the supplier's default, and known. */
const TEAM = ['operations_team_should_be_provided', 'operations_team_name_does_not_exist'] as const satisfies readonly ErrorCode[];
const PRODUCT_ERRORS = ['product_failed_validation', 'no_matching_rate', 'rate_not_continuous'] as const satisfies readonly ErrorCode[];

/** A JSON body or answer: its schema and what it is. */
type Json = [schema: z.ZodType, description: string];

/** What an operation says of itself; its method, its kind's error codes and the write guarantees follow from it. */
type Own = Pick<OperationDoc, 'summary' | 'description' | 'query' | 'errorBodies' | 'examples'> & {
  /** The body of a POST, which can break what every body can and carries what every write does (`WRITE_ERRORS`); a GET has none. */
  readonly request?: Json;
  readonly ok?: Json | OpenAPIV3_1.ResponseObject;
  /** The 201 answer of a write, which gives the guarantees of every write. */
  readonly created?: Json;
  /** The 202 answer of a write that asks for work done later (a webhook replay). */
  readonly accepted?: Json;
  /** Any valid token may call it (the key's own suppliers, the shared catalogue); else a key not scoped to the supplier named is 403. */
  readonly anyKey?: true;
  /** Its codes besides those that follow from the rest; with query parameters, `invalid_query_parameter` follows. */
  readonly errors?: readonly ErrorCode[];
};

/** A streamed answer: text in one of `media` types, not one JSON value. */
const streamed = (description: string, ...media: string[]): OpenAPIV3_1.ResponseObject => ({
  description,
  content: Object.fromEntries(media.map((type) => [type, { schema: { type: 'string' } }])),
});

/** The description of every operation under `/v1/data-import/`, its schemas converted by `schemas`. */
export function operationDocs(schemas: Schemas): OperationDoc[] {
  const answer = ([schema, description]: Json) => schemas.answer(schema, description);
  const operation = (path: string, operationId: string, tag: string, { request, ok, created, accepted, anyKey, errors = [], ...own }: Own): OperationDoc => ({
    ...own,
    method: request ? 'post' : 'get',
    path,
    operationId,
    tags: [tag],
    description: created || accepted ? `${own.description} ${WRITE}` : own.description,
    ...(request ? { request: schemas.request(...request) } : {}),
    responses: {
      ...(created ? { 201: answer(created) } : {}),
      ...(accepted ? { 202: answer(accepted) } : {}),
      ...(ok ? { 200: Array.isArray(ok) ? answer(ok) : ok } : {}),
    },
    errors: [
      ...(anyKey ? AUTHENTICATED_ERRORS : scoped(...(request ? WRITE_ERRORS : []))),
      ...(own.query ? ['invalid_query_parameter' as const] : []),
      ...errors,
    ],
  });
  /**
   * A payment instruction, checked with the payment vendor first: its refusals (400) and failures (500)
   * carry the platform's four fields besides spec 7's.
   */
  const vendorChecked = (path: string, id: string, tag: string, { errorBody, ...own }: Own & { errorBody: z.ZodType }) =>
    operation(path, id, tag, {
      ...own,
      description: `${own.description} A 500 \`payment_vendor_unavailable\` may be retried as is; a 400 must not.`,
      errors: [...(own.errors ?? []), 'invalid_vendor', 'payment_instruction_rejected', 'payment_vendor_unavailable'],
      errorBodies: { 400: schemas.json(errorBody, 'output'), 500: schemas.json(errorBody, 'output') },
    });
  return [
  operation(`${V1}/validate-account/`, 'validateAccount', 'Accounts', {
    summary: 'Validate an account', description: `Checks an account payload (spec 2.2, 4.6) without storing anything; 200 echoes the validated data. ${ACCOUNT_RULES} ${ORDER}`,
    request: [validateAccountRequestSchema, 'The account (spec 2.2).'],
    ok: [validateAccountResponseSchema, 'Valid: the data as it would be stored (unknown fields dropped).'],
    errors: ['account_failed_validation'], examples: ['account-domestic.json', 'account-business.json'],
  }),
  operation(`${V1}/account-import-process/create-or-update/`, 'stageAccount', 'Accounts', {
    summary: 'Stage an account', description: `Stages an account's data (spec 4.7): 201 the first time, 200 when it replaces staged data. ${ACCOUNT_RULES} ${ORDER}`,
    request: [stageAccountRequestSchema, 'The account (spec 2.2).'],
    created: [stageAccountResponseSchema, 'Staged for the first time.'], ok: [stageAccountResponseSchema, 'Staged data replaced.'],
    errors: ['account_failed_validation', ...STAGEABLE], examples: ['account-domestic.json', 'account-business.json'],
  }),
  operation(`${V1}/account-import-process/process/`, 'processAccount', 'Accounts', {
    summary: 'Process a staged account', description: `Creates the platform account from the staged data (spec 4.8). With \`dry_run: true\` everything is decided and rolled back (400 \`dry_run_rollback\` when it would succeed). Before any check, the request takes one of the instance's processing slots (429 \`throttled\` with \`Retry-After\` when none is free). ${ORDER}`,
    request: [processAccountRequestSchema, 'Which staged account, and the operations team.'], created: [processAccountResponseSchema, 'Imported.'],
    errors: ['validation_error', 'account_failed_validation', ...STAGEABLE, ...TEAM, 'dry_run_rollback', 'import_process_does_not_exist'],
    examples: ['process.json'],
  }),
  operation(`${V1}/account-transfer-status/:supplier/:ext/`, 'accountTransferStatus', 'Accounts', {
    summary: "An account's transfer status", description: 'Spec 4.13: `UNKNOWN` until the account is imported.',
    ok: [accountTransferStatusResponseSchema, 'The status.'], errors: ['account_not_found'],
  }),
  ...(['all', 'pending', 'imported'] as const).map((which) =>
    operation(`${V1}/${which}-account-import-processes/:supplier/`, `${which}AccountImportProcesses`, 'Accounts', {
      summary: `${which[0]!.toUpperCase()}${which.slice(1)} accounts of a supplier`,
      description: `The ${which} accounts of the supplier (spec 2.7), streamed in constant memory whatever their number. \`?limit=\` (1 to ${MAX_LIST_LIMIT}) and \`?after=\` page it; the next page's address comes in the \`Link\` header.`,
      query: listPagingQuerySchema, ok: [accountImportProcessListResponseSchema, 'The accounts, oldest first.'],
    }),
  ),
  operation(`${V1}/import-suppliers/`, 'importSuppliers', 'Progress', {
    summary: "The key's suppliers", description: 'The import suppliers the caller\'s key is scoped to, with their migration status (beyond the spec).',
    ok: [importSuppliersResponseSchema, 'The suppliers, by code.'], anyKey: true,
  }),
  operation(`${V1}/import-progress/:supplier/`, 'importProgress', 'Progress', {
    summary: "A supplier's migration progress",
    description: 'Accounts per state (`failing`: not imported, latest stage or process refused; a part of `pending`), imported accounts per transfer status, imports per minute over the last hour, and when the migration started and last moved; `feed_position` is the event feed\'s position when it was read (follow `GET events/` from there for what comes next). Read from counters kept inline (one row), whatever the number of accounts.',
    ok: [importProgressResponseSchema, 'The progress.'],
  }),
  operation(`${V1}/import-failures/:supplier/`, 'importFailures', 'Progress', {
    summary: "A supplier's failing accounts",
    description: `Each failing account with its latest refusal (step, top-level code, error items' codes and paths, when), newest first. \`?code=\` keeps those whose refusal has that code (top-level or an item's). \`?limit=\` (1 to ${MAX_FAILURES_LIMIT}, default ${DEFAULT_FAILURES_LIMIT}) and \`?after=\` page it; the next page's address comes in the \`Link\` header. An account leaves the list when a later attempt succeeds.`,
    query: importFailuresQuerySchema, ok: [importFailuresResponseSchema, 'The failing accounts, newest failure first.'],
  }),
  operation(`${V1}/import-failures/:supplier/summary/`, 'importFailureSummary', 'Progress', {
    summary: "What a supplier's failing accounts fail on",
    description: `Per error code and \`attr\` path (null: none), the number of failing accounts whose latest refusal has it, most first (a refusal without items counts under its top-level code). At most \`?limit=\` rows (1 to ${MAX_FAILURES_LIMIT}, default ${DEFAULT_FAILURES_LIMIT}).`,
    query: importFailureSummaryQuerySchema, ok: [importFailureSummaryResponseSchema, 'The counts, largest first.'],
  }),
  operation(`${V1}/reconciliation/:supplier/`, 'reconciliationExport', 'Accounts', {
    summary: 'The cut-over check', description: 'One record per account of the supplier, streamed: CSV with `?format=csv` or `Accept: text/csv`, NDJSON otherwise.',
    query: reconciliationQuerySchema, ok: streamed('One line per account.', 'text/csv', 'application/x-ndjson'),
  }),
  operation(`${V1}/account-records/:supplier/`, 'accountRecordsExport', 'Accounts', {
    summary: 'The records export', description: 'One NDJSON line per account of the supplier, streamed in the lists\' order: its state, ledger balance in cents, and per kind of record (notes, transactions, historical statements, payment instructions) a count and an order-independent digest (SHA-256 of the records\' sorted lines); `?include=records` adds the records. What `import-ledger verify` compares a migration folder with (docs/migrate.md).',
    query: accountRecordsQuerySchema,
    ok: streamed('One line per account (the shape of `accountRecordsOne`, `records` only with `?include=records`).', 'application/x-ndjson'),
  }),
  operation(`${V1}/account-record/:supplier/:ext/`, 'accountRecordsOne', 'Accounts', {
    summary: "An account's records, as verify compares them", description: 'The line of the records export for one account, with its records.',
    ok: [accountRecordsOneSchema, 'The account and its records.'], errors: ['account_not_found'],
  }),
  operation(`${V1}/products/:code/`, 'readProduct', 'Products', {
    summary: 'A product and its rates', description: 'The product as stored: each rate with its band key, its period (`valid_to` as the continuity rule closed it, null while the latest of its band) and its price. The shared catalogue: any valid token reads it.',
    ok: [productReadResponseSchema, 'The product.'], anyKey: true, errors: ['not_found'],
  }),
  operation(`${V1}/operations-teams/:name/`, 'readOperationsTeam', 'Accounts', {
    summary: 'Whether an operations team exists', description: 'The team by its exact name, as process matches `operations_team_name`: what `import-ledger migrate` checks before its first write. Teams are the platform\'s: any valid token reads them.',
    ok: [operationsTeamReadResponseSchema, 'The team.'], anyKey: true, errors: ['not_found'],
  }),
  operation(`${V1}/business/:supplier/:ext/`, 'readBusiness', 'Businesses', {
    summary: 'A business, its contracts and its payment instructions', description: `The business as stored, with its contracts' identifiers and its payment instructions (business-payment-instruction/create/, under the create body's field names), ${BUSINESS_PAYMENT_INSTRUCTIONS_PAGE} at most an answer, by reference: \`payment_instructions_next\` reads the next page (null on the last), \`payment_instructions_after\` starts a page after a reference. What \`import-ledger verify\` compares the folder's businesses with.`,
    query: businessReadQuerySchema,
    ok: [businessReadResponseSchema, 'The business.'], errors: ['business_not_found'],
  }),
  operation(`${V1}/account-history/:supplier/:ext/`, 'accountHistory', 'Audit', {
    summary: "An account's history", description: 'A page of the events of the account\'s streams, oldest first; with `as_of`, its state at that instant and the events recorded by then.',
    query: accountHistoryQuerySchema,
    ok: {
      description: 'The events (and, with `as_of`, the state then).',
      content: { 'application/json': { schema: { oneOf: [schemas.json(accountHistoryResponseSchema, 'output'), schemas.json(accountHistoryAsOfResponseSchema, 'output')] } } },
    },
    errors: ['account_not_found'],
  }),
  operation(`${V1}/events/`, 'eventsFeed', 'Audit', {
    summary: 'The external event feed', description: 'The external events of the caller\'s suppliers (and the shared catalogue) after a position, each `{position, id, type, timestamp, data}` (the types and their data: the document\'s `webhooks`), as JSON pages or (with `Accept: text/event-stream`) a live SSE stream (`event:` the type, `id:` the position, `data:` the item) resumable with `Last-Event-ID`. The stream checks its credential again at least every 5 s and on every new event: once the key is revoked or the token expires it ends with a final `event: error` whose data is the 401 `authentication_failed` error body, and the reconnect is answered 401.',
    query: eventsFeedQuerySchema,
    ok: {
      description: 'A page of events, or the live stream.',
      content: { ...answer([eventsFeedResponseSchema, '']).content, ...streamed('', 'text/event-stream').content },
    },
    errors: ['invalid'],
  }),
  operation(`${V1}/business/`, 'createBusiness', 'Businesses', {
    summary: 'Create a business', description: `A business with its contracts (spec 2.4, 4.4). ${CONTRACT_RULES} ${BUSINESS_DETAIL_RULES}`,
    request: [createBusinessRequestSchema, 'The business (spec 2.4).'],
    created: [createBusinessResponseSchema, 'Created, or already created with the same key attributes (spec 2.4).'],
    errors: ['business_failed_validation', 'business_already_exists', 'import_supplier_not_found'], examples: ['business.json'],
  }),
  operation(`${V1}/validate-products/`, 'validateProducts', 'Products', {
    summary: 'Validate products', description: `Checks products (spec 2.5) without storing anything. ${PRODUCT_RULES}`,
    request: [productsRequestSchema, 'The products (spec 2.5).'], ok: [validateProductsResponseSchema, 'Valid: the products as they would be stored.'],
    errors: PRODUCT_ERRORS, examples: ['products.json'],
  }),
  operation(`${V1}/products/`, 'createProducts', 'Products', {
    summary: 'Create products, or add rates', description: `Creates products, or appends rates to existing ones (spec 4.3). ${PRODUCT_RULES}`,
    request: [productsRequestSchema, 'The products (spec 2.5).'], created: [createProductsResponseSchema, 'Created or updated.'],
    errors: PRODUCT_ERRORS, examples: ['products.json', 'product-rate-update.json'],
  }),
  operation(`${V1}/supply-point/populate/`, 'populateSupplyPoints', 'Supply points', {
    summary: 'Pre-populate supply points', description: `Records a batch of supply point ids to fetch from the network operators; a worker calls them (201 at once). ${POPULATE_RULES}`,
    request: [populateSupplyPointsRequestSchema, 'The ids to fetch.'], created: [populateSupplyPointsResponseSchema, 'The batch, recorded.'],
    errors: ['validation_error', 'import_supplier_not_found'], examples: ['supply-point-populate.json'],
  }),
  operation(`${V1}/supply-point/populate/:batchId/`, 'populateBatchStatus', 'Supply points', {
    summary: "A populate batch's status", description: 'What was fetched, what waits, what failed and why.',
    ok: [populateBatchStatusResponseSchema, 'The batch.'], errors: ['populate_batch_not_found'],
  }),
  operation(`${V1}/notes/create/`, 'createNotes', 'After import', {
    summary: 'Add notes to an imported account', description: `Spec 4.9. A note already added is not added twice. ${NOTE_RULES}`,
    request: [importNotesRequestSchema, 'The notes.'], created: [createNotesResponseSchema, 'One result per note.'],
    errors: ['notes_failed_validation', 'account_not_found', ...MIGRATING], examples: ['notes.json'],
  }),
  operation(`${V1}/transactions/create/`, 'createTransactions', 'After import', {
    summary: 'Add financial transactions to an imported account', description: `Spec 4.10. The first transaction a ledger rule refuses is answered with the TRANSACTION_IMPORT_ERROR body. ${TRANSACTION_RULES}`,
    request: [importTransactionsRequestSchema, 'The transactions.'], created: [createTransactionsResponseSchema, 'One result per transaction.'],
    query: transactionsQuerySchema, errors: ['transactions_failed_validation', 'account_not_found', ...MIGRATING],
    errorBodies: { 400: schemas.json(transactionImportErrorBodySchema, 'output') }, examples: ['transactions.json'],
  }),
  operation(`${V1}/historical-statements/create/`, 'createHistoricalStatements', 'After import', {
    summary: 'Add historical statements to an imported account', description: `Spec 4.11. ${STATEMENT_RULES}`,
    request: [importHistoricalStatementsRequestSchema, 'The statements.'], created: [createHistoricalStatementsResponseSchema, 'Added.'],
    errors: ['historical_statements_failed_validation', 'account_not_found', ...MIGRATING], examples: ['historical-statements.json'],
  }),
  vendorChecked(`${V1}/payment-instruction/create/`, 'createPaymentInstruction', 'After import', {
    summary: 'Add a payment instruction to an imported account', description: 'Spec 4.12: checked with the payment vendor first.',
    request: [createPaymentInstructionRequestSchema, 'The payment instruction.'], created: [createPaymentInstructionResponseSchema, 'Added.'],
    errors: ['validation_error', 'account_not_found', 'import_supplier_migration_not_ongoing'],
    errorBody: paymentInstructionErrorBodySchema, examples: ['payment-instruction.json'],
  }),
  operation(`${V1}/service/`, 'readServiceIdentity', 'Audit', {
    summary: "The service's identity", description: "A UUID drawn once with the service's ledger: every instance on one database answers the same, and a new (or reset) database is a new service. `import-ledger migrate` records it in its journal and `import-ledger verify` in its summary. Any valid token reads it.",
    ok: [serviceIdentityResponseSchema, 'The identity.'], anyKey: true, errors: [],
  }),
  operation(`${V1}/verifications/`, 'recordVerification', 'Audit', {
    summary: 'Record a verification', description: "What `import-ledger verify` found (whether the folder and the service agree, counts per kind of item), recorded on the supplier's stream: the last one is `last_verification` of the import progress (the dashboard), every one is in the supplier's history.",
    request: [recordVerificationRequestSchema, 'The verification.'], created: [recordVerificationResponseSchema, 'Recorded.'],
    errors: ['validation_error', 'import_supplier_not_found'],
  }),
  operation(`${V1}/business-contracts/create/`, 'createBusinessContracts', 'Businesses', {
    summary: 'Add contracts to a business', description: `Contracts added to an existing business (the platform's French tenants); accounts can then link to them. ${CONTRACT_RULES}`,
    request: [createBusinessContractsRequestSchema, 'The business and its new contracts.'], created: [createBusinessContractsResponseSchema, 'Added.'],
    errors: ['business_failed_validation', 'business_not_found', ...MIGRATING],
  }),
  vendorChecked(`${V1}/business-payment-instruction/create/`, 'createBusinessPaymentInstruction', 'Businesses', {
    summary: 'Add a payment instruction to a business', description: `Checked with the payment vendor first, as the account one. ${BUSINESS_INSTRUCTION_RULES}`,
    request: [createBusinessPaymentInstructionRequestSchema, 'The payment instruction and the accounts it covers.'],
    created: [createBusinessPaymentInstructionResponseSchema, 'Added (or already added with this reference).'],
    errors: ['validation_error', 'business_not_found', 'account_not_found', ...MIGRATING], errorBody: businessPaymentInstructionErrorBodySchema,
  }),
  ...webhookOperations(V1).map(({ path, operationId, write, ...own }) =>
    operation(path, operationId, 'Webhooks', { ...own, description: write ? `${own.description} ${WRITE}` : own.description }),
  ),
  operation(`${V2}/accounts/validate/`, 'v2ValidateAccount', 'Accounts (v2)', {
    summary: 'Validate an account (v2)', description: `The account under \`payload\` (refusals name its fields as v1 does, without \`payload.\`); 200 \`{}\` when valid. ${ACCOUNT_RULES} ${ORDER}`,
    request: [z.object({ payload: accountPayloadSchema }), 'The account (spec 2.2) under `payload`.'], ok: [z.object({}), 'Valid.'],
    errors: ['validation_error', 'account_failed_validation'],
  }),
  operation(`${V2}/accounts/`, 'v2ScheduleAccountCreation', 'Accounts (v2)', {
    summary: 'Stage an account and schedule its creation (v2)', description: `Stages the account and schedules its creation inside \`task_params\`' window (at once without one; the window may not start in the past or end more than 4 days ahead). The team comes from the payload, else the supplier's default. Refusals name the payload's fields as v1 does, without \`payload.\`. ${ACCOUNT_RULES}`,
    request: [z.object({ payload: accountPayloadSchema, task_params: taskParamsSchema }), 'The account under `payload`, and when to create it.'],
    created: [z.object({}), 'Staged and scheduled.'],
    errors: [
      'validation_error', 'import_process_failed_validation', ...STAGEABLE, ...TEAM,
      'schedule_window_start_in_past', 'schedule_window_end_too_far_in_future', 'schedule_window_start__after_end',
    ],
  }),
  operation(`${V2}/accounts/:supplier/:ext/`, 'v2AccountImportStatus', 'Accounts (v2)', {
    summary: "An account's import status (v2)", description: 'The platform\'s statuses, the latest event and the latest error; v1-staged accounts too.',
    ok: [accountImportStatusResponseSchema, 'The status.'], errors: ['not_found'],
  }),
];
}
