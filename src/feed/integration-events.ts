import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent, LedgerEventType } from '../../events/registry.js';
import { formatCents } from '../domain/account-records/money.js';

/**
 * The feed's public event catalogue (`GET /v1/data-import/events/`), derived from the stored events: a
 * contract of its own, smaller than the log (no payloads, secrets or bookkeeping such as claims and retries).
 */
export interface IntegrationEvent {
  readonly position: number;
  readonly type: string;
  readonly occurred_at: string;
  /** The import supplier the event belongs to; null for the shared product catalogue. */
  readonly import_supplier: string | null;
  readonly external_account_number?: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Who may see an event: one supplier, the suppliers of a populate batch (looked up), or everyone (catalogue). */
export type Scope = { readonly supplier: string } | { readonly batchId: string } | { readonly everyone: true };

interface Mapped {
  readonly type: string;
  readonly scope: Scope;
  readonly externalAccountNumber?: string;
  readonly data: Record<string, unknown>;
}

type Mappers = { readonly [T in LedgerEventType]?: (event: Extract<LedgerEvent, { type: T }>) => Mapped };

const account = (data: { importSupplier: string; externalAccountNumber: string }) => ({
  scope: { supplier: data.importSupplier },
  externalAccountNumber: data.externalAccountNumber,
});

const mappers: Mappers = {
  AccountStaged: (e) => ({ type: 'import_process.staged', ...account(e.data), data: {} }),
  AccountRestaged: (e) => ({ type: 'import_process.restaged', ...account(e.data), data: {} }),
  AccountProcessed: (e) => ({
    type: 'import_process.imported',
    ...account(e.data),
    data: { platform_account_number: e.data.platformAccountNumber, operations_team_name: e.data.operationsTeamName },
  }),
  AccountProcessDryRunSucceeded: (e) => ({
    type: 'import_process.dry_run_succeeded',
    ...account(e.data),
    data: { platform_account_number: e.data.platformAccountNumber, operations_team_name: e.data.operationsTeamName },
  }),
  TransactionsDryRunSucceeded: (e) => ({
    type: 'transactions.dry_run_succeeded',
    ...account(e.data),
    data: { transaction_ids: e.data.added.map((transaction) => transaction.transactionId) },
  }),
  AccountCreationScheduled: (e) => ({
    type: 'import_process.creation_scheduled',
    ...account(e.data),
    data: { is_dry_run: e.data.isDryRun, schedule_window_start: e.data.windowStart, schedule_window_end: e.data.windowEnd },
  }),
  AccountCreationFinished: (e) => ({
    type: 'import_process.creation_finished',
    ...account(e.data),
    data: { status: e.data.outcome, error_code: e.data.error?.code ?? null },
  }),
  AccountCreationCancelled: (e) => ({ type: 'import_process.creation_cancelled', ...account(e.data), data: {} }),
  AccountImportAttemptRefused: (e) => ({
    type: 'import_process.attempt_refused',
    ...account(e.data),
    data: { operation: e.data.operation, dry_run: e.data.dryRun, code: e.data.code },
  }),
  AccountMarkedToSkip: (e) => ({ type: 'import_process.marked_to_skip', ...account(e.data), data: {} }),
  AccountTransferStatusChanged: (e) => ({
    type: 'transfer_status.changed',
    ...account(e.data),
    data: { from: e.data.from, to: e.data.to },
  }),
  AccountNoteCreated: (e) => ({
    type: 'note.created',
    ...account(e.data),
    data: { created_at: e.data.createdAt, is_pinned: e.data.isPinned, source: e.data.source },
  }),
  LedgerTransactionAdded: (e) => ({
    type: 'transaction.added',
    ...account(e.data),
    data: {
      transaction_id: e.data.transaction.transactionId,
      type: e.data.transaction.type,
      transaction_date: e.data.transaction.transactionDate,
      amount: formatCents(e.data.transaction.amountCents),
    },
  }),
  HistoricalStatementImported: (e) => ({
    type: 'historical_statement.imported',
    ...account(e.data),
    data: { statement_id: e.data.statementId, bill_period_from_date: e.data.billPeriodFromDate, bill_period_to_date: e.data.billPeriodToDate },
  }),
  PaymentInstructionCreated: (e) => ({
    type: 'payment_instruction.created',
    ...account(e.data),
    data: { vendor: e.data.vendor, reference: e.data.reference, type: e.data.type },
  }),
  ImportSupplierStatusChanged: (e) => ({
    type: 'import_supplier.status_changed',
    scope: { supplier: e.data.code },
    data: { from: e.data.from, to: e.data.to },
  }),
  BusinessCreated: (e) => ({
    type: 'business.created',
    scope: { supplier: e.data.importSupplier },
    data: { external_business_identifier: e.data.externalBusinessIdentifier },
  }),
  BusinessContractAdded: (e) => ({
    type: 'business.contract_added',
    scope: { supplier: e.data.importSupplier },
    data: { external_business_identifier: e.data.externalBusinessIdentifier, identifier: e.data.identifier },
  }),
  BusinessPaymentInstructionCreated: (e) => ({
    type: 'business.payment_instruction_created',
    scope: { supplier: e.data.importSupplier },
    data: {
      external_business_identifier: e.data.externalBusinessIdentifier,
      vendor: e.data.vendor,
      reference: e.data.reference,
      type: e.data.type,
      external_account_numbers: e.data.accounts.map((account) => account.externalAccountNumber),
    },
  }),
  ProductCreated: (e) => ({ type: 'product.created', scope: { everyone: true }, data: { code: e.data.code, market_name: e.data.marketName } }),
  RatesAdded: (e) => ({ type: 'product.rates_added', scope: { everyone: true }, data: { code: e.data.code, rates_added: e.data.rates.length } }),
  SupplyPointImported: (e) => ({
    type: 'supply_point.imported',
    scope: { batchId: e.data.batchId },
    data: { batch_id: e.data.batchId, supply_type: e.data.supplyType, identifier: e.data.identifier },
  }),
  SupplyPointPopulateRequestErrored: (e) => ({
    type: 'supply_point.errored',
    scope: { batchId: e.data.batchId },
    data: { batch_id: e.data.batchId, supply_type: e.data.supplyType, identifier: e.data.identifier, reason: e.data.reason },
  }),
};

/** The domain event types that appear in the feed. */
export const feedEventTypes = Object.keys(mappers) as LedgerEventType[];

/** The integration event of a stored event with its visibility scope, or null when it is not part of the catalogue. */
export function toIntegrationEvent(stored: StoredEvent<LedgerEvent>): { event: IntegrationEvent; scope: Scope } | null {
  const mapper = mappers[stored.event.type] as ((event: LedgerEvent) => Mapped) | undefined;
  if (!mapper) return null;
  const mapped = mapper(stored.event);
  const event: IntegrationEvent = {
    position: stored.globalPosition,
    type: mapped.type,
    occurred_at: stored.recordedAt.replace(/\.\d+Z$/, 'Z'),
    import_supplier: 'supplier' in mapped.scope ? mapped.scope.supplier : null,
    ...(mapped.externalAccountNumber === undefined ? {} : { external_account_number: mapped.externalAccountNumber }),
    data: mapped.data,
  };
  return { event, scope: mapped.scope };
}
