import type { StoredEvent } from '../../events/envelope.js';
import { isAccountImportOperation } from '../../events/import-attempt.js';
import type { LedgerEvent, LedgerEventType } from '../../events/registry.js';
import { formatCents } from '../domain/account-records/money.js';
import { externalEventTypes, recordTypeOfOperation, type ExternalEventData, type ExternalEventType } from './event-types.js';

export { externalEventTypes, type ExternalEventType } from './event-types.js';

/**
 * The one catalogue of external events: what the feed, its SSE stream, webhooks and the broker publish, derived
 * from the stored events. A contract of its own, smaller than the log: no payloads, secrets or bookkeeping
 * (claims, retries), never a customer's personal data. The types and their data: ./event-types.ts.
 */

/** One external event: what a webhook's body is ({type, timestamp, data}), with the id receivers dedupe by. */
export interface ExternalEvent {
  /** The stored event's id (metadata.eventId): the webhook-id and the NATS Nats-Msg-Id. */
  readonly id: string;
  /** e.g. 'data_import.import_process.complete-v1' */
  readonly type: ExternalEventType;
  /** When it was recorded, ISO 8601 UTC to the second ('2026-11-29T10:00:00Z'). */
  readonly timestamp: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Who may see an event: one supplier, the suppliers of a populate batch (looked up), or everyone (catalogue). */
export type Scope = { readonly supplier: string } | { readonly batchId: string } | { readonly everyone: true };

/** An external event with what the relays and the feed need besides its payload. */
export interface RoutedEvent {
  /** The stored event's global position. */
  readonly position: number;
  readonly event: ExternalEvent;
  /** Who may see it. */
  readonly scope: Scope;
  /** What must stay in order: `account:<supplier>/<ext>`, `business:<supplier>/<id>`, `supplier:<code>`, `batch:<id>`, `catalogue`. */
  readonly orderingKey: string;
}

/** What a mapper makes of a stored event: a type with its data (typed by the type's schema), scope and ordering key. */
type Mapped = {
  [T in ExternalEventType]: { readonly type: T; readonly data: ExternalEventData<T>; readonly scope: Scope; readonly orderingKey: string };
}[ExternalEventType];

type Mappers = { readonly [S in LedgerEventType]?: (event: Extract<LedgerEvent, { type: S }>['data']) => Mapped | null };

type Routing = Pick<Mapped, 'scope' | 'orderingKey'>;

/** A `type` event: its data checked against the type's schema (an unknown field is a compile error too). */
const emit = <T extends ExternalEventType>(type: T, data: ExternalEventData<T>, routing: Routing): Mapped => ({ type, data, ...routing }) as Mapped;

type AccountRef = { readonly importSupplier: string; readonly externalAccountNumber: string };
type BusinessRef = { readonly importSupplier: string; readonly externalBusinessIdentifier: string };

const account = (d: AccountRef) => ({ import_supplier: d.importSupplier, external_account_number: d.externalAccountNumber });
const ofAccount = (d: AccountRef) => ({ scope: { supplier: d.importSupplier }, orderingKey: `account:${d.importSupplier}/${d.externalAccountNumber}` });
const business = (d: BusinessRef) => ({ import_supplier: d.importSupplier, external_business_identifier: d.externalBusinessIdentifier });
const ofBusiness = (d: BusinessRef) => ({ scope: { supplier: d.importSupplier }, orderingKey: `business:${d.importSupplier}/${d.externalBusinessIdentifier}` });
const ofCatalogue = { scope: { everyone: true }, orderingKey: 'catalogue' } as const;
const ofBatch = (batchId: string) => ({ scope: { batchId }, orderingKey: `batch:${batchId}` });
const refusalFacts = (d: { code: string; errors: readonly { code: string; attr: string | null }[] }) => ({
  code: d.code,
  errors: d.errors.map((e) => ({ code: e.code, attr: e.attr })),
});

const mappers: Mappers = {
  AccountStaged: (d) => emit('data_import.import_process.staged-v1', account(d), ofAccount(d)),
  AccountRestaged: (d) => emit('data_import.import_process.restaged-v1', account(d), ofAccount(d)),
  AccountProcessed: (d) =>
    emit(
      'data_import.import_process.complete-v1',
      {
        ...account(d),
        platform_account_number: d.platformAccountNumber,
        operations_team_name: d.operationsTeamName,
        business_contract_identifier: d.businessContractIdentifier ?? null,
      },
      ofAccount(d),
    ),
  AccountProcessDryRunSucceeded: (d) =>
    emit(
      'data_import.import_process.dry_run_complete-v1',
      { ...account(d), platform_account_number: d.platformAccountNumber, operations_team_name: d.operationsTeamName },
      ofAccount(d),
    ),
  AccountImportAttemptRefused: (d) => {
    const { operation } = d;
    if (isAccountImportOperation(operation)) {
      const data = { ...account(d), operation, ...refusalFacts(d) };
      return emit(d.dryRun ? 'data_import.import_process.dry_run_error-v1' : 'data_import.import_process.error-v1', data, ofAccount(d));
    }
    const data = { ...account(d), record_type: recordTypeOfOperation[operation], ...refusalFacts(d) };
    return emit(d.dryRun ? 'data_import.post_import.dry_run_error-v1' : 'data_import.post_import.error-v1', data, ofAccount(d));
  },
  AccountMarkedToSkip: (d) => emit('data_import.import_process.cancelled-v1', account(d), ofAccount(d)),
  AccountTransferStatusChanged: (d) => emit('data_import.transfer_status.changed-v1', { ...account(d), from: d.from, to: d.to }, ofAccount(d)),
  AccountNoteCreated: (d) =>
    emit(
      'data_import.post_import.completed-v1',
      { ...account(d), record_type: 'note', sequence: d.sequence, created_at: d.createdAt, is_pinned: d.isPinned, source: d.source },
      ofAccount(d),
    ),
  LedgerTransactionAdded: ({ transaction, ...d }) =>
    emit(
      'data_import.post_import.completed-v1',
      {
        ...account(d),
        record_type: 'transaction',
        transaction_id: transaction.transactionId,
        transaction_type: transaction.type,
        transaction_date: transaction.transactionDate,
        amount: formatCents(transaction.amountCents),
      },
      ofAccount(d),
    ),
  HistoricalStatementImported: (d) =>
    emit(
      'data_import.post_import.completed-v1',
      {
        ...account(d),
        record_type: 'historical_statement',
        statement_id: d.statementId,
        bill_period_from_date: d.billPeriodFromDate,
        bill_period_to_date: d.billPeriodToDate,
        source: d.source,
      },
      ofAccount(d),
    ),
  PaymentInstructionCreated: (d) =>
    emit(
      'data_import.post_import.completed-v1',
      {
        ...account(d),
        record_type: 'payment_instruction',
        platform_account_number: d.platformAccountNumber,
        vendor: d.vendor,
        reference: d.reference,
        instruction_type: d.type,
      },
      ofAccount(d),
    ),
  TransactionsDryRunSucceeded: (d) =>
    emit(
      'data_import.post_import.dry_run_completed-v1',
      { ...account(d), record_type: 'transaction', transaction_ids: d.added.map((transaction) => transaction.transactionId) },
      ofAccount(d),
    ),
  AccountCreationScheduled: (d) =>
    emit(
      'data_import.account_creation.scheduled-v1',
      {
        ...account(d),
        task_id: d.taskId,
        is_dry_run: d.isDryRun,
        operations_team_name: d.operationsTeamName,
        schedule_window_start: d.windowStart,
        schedule_window_end: d.windowEnd,
      },
      ofAccount(d),
    ),
  AccountCreationCancelled: (d) => emit('data_import.account_creation.cancelled-v1', { ...account(d), task_id: d.taskId }, ofAccount(d)),
  AccountCreationFinished: (d) => {
    const ref = { ...account(d), task_id: d.taskId };
    switch (d.outcome) {
      case 'PROCESSED':
        // Written with the account's AccountProcessed, so it always names the number; one without would create nothing.
        return d.platformAccountNumber === null ? null : emit('account.created-v1', { ...ref, platform_account_number: d.platformAccountNumber }, ofAccount(d));
      case 'DRY_RUN_SUCCEEDED':
        return emit('data_import.account_creation.dry_run_complete-v1', ref, ofAccount(d));
      case 'ERRORED':
      case 'DRY_RUN_ERRORED':
        return emit(
          'data_import.account_creation.failed-v1',
          { ...ref, is_dry_run: d.outcome === 'DRY_RUN_ERRORED', error_code: d.error?.code ?? null },
          ofAccount(d),
        );
    }
  },
  ImportSupplierStatusChanged: (d) =>
    emit('data_import.import_supplier.status_changed-v1', { import_supplier: d.code, from: d.from, to: d.to }, { scope: { supplier: d.code }, orderingKey: `supplier:${d.code}` }),
  BusinessCreated: (d) => emit('data_import.business.created-v1', business(d), ofBusiness(d)),
  BusinessContractAdded: (d) => emit('data_import.business_contract.added-v1', { ...business(d), business_contract_identifier: d.identifier }, ofBusiness(d)),
  BusinessPaymentInstructionCreated: (d) =>
    emit(
      'data_import.business_payment_instruction.created-v1',
      {
        ...business(d),
        vendor: d.vendor,
        reference: d.reference,
        instruction_type: d.type,
        accounts: d.accounts.map((a) => ({ external_account_number: a.externalAccountNumber, platform_account_number: a.platformAccountNumber })),
      },
      ofBusiness(d),
    ),
  ProductCreated: (d) => emit('data_import.product.created-v1', { import_supplier: null, code: d.code, market_name: d.marketName }, ofCatalogue),
  RatesAdded: (d) => emit('data_import.product.rates_added-v1', { import_supplier: null, code: d.code, rates_added: d.rates.length }, ofCatalogue),
  SupplyPointImported: (d) =>
    emit('data_import.supply_point.imported-v1', { import_supplier: null, batch_id: d.batchId, supply_type: d.supplyType, identifier: d.identifier }, ofBatch(d.batchId)),
  SupplyPointPopulateRequestErrored: (d) =>
    emit(
      'data_import.supply_point.error-v1',
      { import_supplier: null, batch_id: d.batchId, supply_type: d.supplyType, identifier: d.identifier, reason: d.reason },
      ofBatch(d.batchId),
    ),
};

/** The stored event types the catalogue reads from the log (what a relay asks the log for). */
export const sourceEventTypes = Object.keys(mappers) as readonly LedgerEventType[];

/** The external event of a stored event, with its position, scope and ordering key; null when it is not part of the catalogue. */
export function toExternalEvent(stored: StoredEvent<LedgerEvent>): RoutedEvent | null {
  const mapper = mappers[stored.event.type] as ((data: LedgerEvent['data']) => Mapped | null) | undefined;
  const mapped = mapper?.(stored.event.data) ?? null;
  if (mapped === null) return null;
  return {
    position: stored.globalPosition,
    event: { id: stored.metadata.eventId, type: mapped.type, timestamp: stored.recordedAt.replace(/\.\d+Z$/, 'Z'), data: mapped.data },
    scope: mapped.scope,
    orderingKey: mapped.orderingKey,
  };
}

/** Whether `type` matches an endpoint's filter: exact names and `prefix.*` (e.g. `data_import.*`); an empty filter matches all. */
export function matchesEventTypes(filter: readonly string[], type: string): boolean {
  return filter.length === 0 || filter.some((entry) => (entry.endsWith('.*') ? type.startsWith(entry.slice(0, -1)) : entry === type));
}

/** A filter entry is valid: a known type, or a `prefix.*` that matches at least one known type. */
export function isEventTypeFilter(entry: string): boolean {
  return externalEventTypes.some((type) => (entry.endsWith('.*') ? entry.length > 2 && matchesEventTypes([entry], type) : entry === type));
}
