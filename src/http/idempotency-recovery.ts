import type { StoredEvent } from '../../events/envelope.js';
import { productStreamId } from '../../events/product.js';
import type { LedgerEvent } from '../../events/registry.js';
import { dryRunRolledBack } from '../domain/account-import-process/decider.js';
import { centsToNumber } from '../domain/account-records/money.js';
import { validateBusinessPayload } from '../domain/business/business-payload.js';
import { transactionData } from '../domain/ledger/ledger-transaction.js';
import { transactionResults } from '../application/account-transactions.js';
import { validateImportTransactionsRequest } from '../domain/ledger/transaction-payload.js';
import { validateImportNotesRequest } from '../domain/notes/note-payload.js';
import { noteResultStatuses } from '../domain/notes/note-results.js';
import { validateProducts } from '../domain/product/product-payload.js';
import { validateImportHistoricalStatementsRequest } from '../domain/statements/statement-payload.js';
import { errorBody, statusOf } from './errors.js';
import { stageAccountResponse } from './routes/account-import-processes.js';
import { businessContractsResponse } from './routes/business-contracts.js';

/** A response rebuilt from the events a request appended. */
export interface RecoveredResponse {
  readonly status: number;
  readonly body: unknown;
}

type Events = readonly StoredEvent<LedgerEvent>[];
type Recover = (request: unknown, events: Events, reservedAt: string) => RecoveredResponse | null;

const ofType = <T extends LedgerEvent['type']>(events: Events, type: T) =>
  events.filter((stored): stored is StoredEvent<Extract<LedgerEvent, { type: T }>> => stored.event.type === type);

const withoutMillis = (iso: string) => iso.replace(/\.\d+Z$/, 'Z');

/**
 * For each POST that appends events: its 2xx response, rebuilt from the
 * request (a retry carries the same body: the fingerprint matched) and the
 * events the first request appended, exactly as the route renders it. Used
 * only when the first request's events were committed but its response never
 * was (the process died in between). Every entry is checked against its
 * route by test/hardening/idempotency.test.ts, which simulates that crash for
 * every endpoint of the table.
 */
export const recoveries: Readonly<Record<string, Recover>> = {
  // From the staging event, which holds the two names the answer repeats: the request is not validated again
  // (the middleware rebuilds every keyed answer once to check it, so this one stays cheap).
  '/v1/data-import/account-import-process/create-or-update/': (_request, events) => {
    const staged = ofType(events, 'AccountStaged')[0] ?? ofType(events, 'AccountRestaged')[0];
    if (!staged) return null;
    const { importSupplier, externalAccountNumber } = staged.event.data;
    return { status: staged.event.type === 'AccountStaged' ? 201 : 200, body: stageAccountResponse(importSupplier, externalAccountNumber) };
  },
  '/v1/data-import/account-import-process/process/': (_request, events) => {
    // A successful dry run appends only its audit record; its answer is the dry_run_rollback error.
    if (ofType(events, 'AccountProcessDryRunSucceeded').length > 0) {
      const error = dryRunRolledBack();
      return { status: statusOf(error.code), body: errorBody(error) };
    }
    const processed = ofType(events, 'AccountProcessed')[0];
    if (!processed) return null;
    const { externalAccountNumber, platformAccountNumber } = processed.event.data;
    return { status: 201, body: { external_account_number: externalAccountNumber, platform_account_number: platformAccountNumber } };
  },
  // Staged and scheduled in one unit: the events are there only if it succeeded.
  '/v2/data-import/accounts/': (_request, events) => (ofType(events, 'AccountCreationScheduled').length > 0 ? { status: 201, body: {} } : null),
  '/v1/data-import/products/': (request, events) => {
    const products = validateProducts(request);
    if (!products.ok) return null;
    const items = products.data.map(({ code }) => {
      const own = events.filter((stored) => stored.streamId === productStreamId(code));
      return {
        code,
        created: ofType(own, 'ProductCreated').length > 0,
        rates_added: ofType(own, 'RatesAdded').reduce((n, stored) => n + stored.event.data.rates.length, 0),
      };
    });
    return { status: 201, body: { products: items } };
  },
  '/v1/data-import/business/': (request, events) => {
    const payload = validateBusinessPayload(request);
    const created = ofType(events, 'BusinessCreated')[0];
    if (!payload.ok || !created) return null;
    return { status: 201, body: { platform_business_id: created.globalPosition, external_business_identifier: payload.data.external_business_identifier } };
  },
  '/v1/data-import/supply-point/populate/': (_request, events) => {
    const batch = ofType(events, 'SupplyPointPopulateBatchCreated')[0];
    return batch ? { status: 201, body: { batch_id: batch.event.data.batchId } } : null;
  },
  '/v1/data-import/notes/create/': (request, events, reservedAt) => {
    const notes = validateImportNotesRequest(request);
    if (!notes.ok) return null;
    const created = ofType(events, 'AccountNoteCreated').map((stored) => stored.event);
    const statuses = noteResultStatuses(notes.data.notes, created);
    // The server clock the first request stamped notes without created_at with.
    const stamped = created.find((event) => !event.data.createdAtGiven)?.data.createdAt ?? reservedAt;
    const body = notes.data.notes.map((note, i) => ({
      body: note.body ?? null,
      created_at: note.created_at ?? withoutMillis(stamped),
      is_pinned: note.is_pinned ?? false,
      ...(note.unpin_at === undefined ? {} : { unpin_at: note.unpin_at }),
      document_paths: note.document_paths ?? [],
      status: statuses[i] ?? 'NOTE_ALREADY_EXISTS',
    }));
    return { status: 201, body };
  },
  '/v1/data-import/transactions/create/': (request, events) => {
    const transactions = validateImportTransactionsRequest(request);
    if (!transactions.ok) return null;
    // A real import's added transactions, or what its dry run records it would have added.
    const added = [
      ...ofType(events, 'LedgerTransactionAdded').map((stored) => stored.event.data.transaction),
      ...ofType(events, 'TransactionsDryRunSucceeded').flatMap((stored) => stored.event.data.added),
    ];
    const results = transactionResults(transactions.data.transactions, added).map(({ status, transaction }) => ({ status, transaction_data: transactionData(transaction) }));
    return { status: 201, body: { results } };
  },
  '/v1/data-import/historical-statements/create/': (request) => {
    const statements = validateImportHistoricalStatementsRequest(request);
    if (!statements.ok) return null;
    const { import_supplier, external_account_number } = statements.data;
    const items = statements.data.statements.map((statement) => ({ ...statement, gross_amount: centsToNumber(statement.gross_amount) }));
    return { status: 201, body: { import_supplier, external_account_number, statements: items } };
  },
  '/v1/data-import/business-contracts/create/': (_request, events) => {
    const added = ofType(events, 'BusinessContractAdded').map((stored) => stored.event.data.identifier);
    return added.length > 0 ? { status: 201, body: businessContractsResponse(added) } : null;
  },
  '/v1/data-import/business-payment-instruction/create/': (_request, events) => {
    const created = ofType(events, 'BusinessPaymentInstructionCreated')[0];
    if (!created) return null;
    return { status: 201, body: { reference: created.event.data.reference, external_business_identifier: created.event.data.externalBusinessIdentifier } };
  },
  '/v1/data-import/payment-instruction/create/': (_request, events) => {
    const created = ofType(events, 'PaymentInstructionCreated')[0];
    if (!created) return null;
    return { status: 201, body: { platform_account_number: created.event.data.platformAccountNumber, reference: created.event.data.reference } };
  },
};
