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

type AccountData = { importSupplier: string; externalAccountNumber: string };

/** The mapper of an account's event: seen by its supplier, naming the account. */
const onAccount =
  <D extends AccountData>(type: string, data: (d: D) => Record<string, unknown> = () => ({})) =>
  (e: { data: D }): Mapped => ({ type, scope: { supplier: e.data.importSupplier }, externalAccountNumber: e.data.externalAccountNumber, data: data(e.data) });

/** The mapper of a business's event: seen by its supplier, naming the business first. */
const onBusiness =
  <D extends { importSupplier: string; externalBusinessIdentifier: string }>(type: string, data: (d: D) => Record<string, unknown> = () => ({})) =>
  (e: { data: D }): Mapped => ({
    type,
    scope: { supplier: e.data.importSupplier },
    data: { external_business_identifier: e.data.externalBusinessIdentifier, ...data(e.data) },
  });

const mappers: Mappers = {
  AccountStaged: onAccount('import_process.staged'),
  AccountRestaged: onAccount('import_process.restaged'),
  AccountProcessed: onAccount('import_process.imported', (d) => ({ platform_account_number: d.platformAccountNumber, operations_team_name: d.operationsTeamName })),
  AccountProcessDryRunSucceeded: onAccount('import_process.dry_run_succeeded', (d) => ({
    platform_account_number: d.platformAccountNumber,
    operations_team_name: d.operationsTeamName,
  })),
  TransactionsDryRunSucceeded: onAccount('transactions.dry_run_succeeded', (d) => ({ transaction_ids: d.added.map((transaction) => transaction.transactionId) })),
  AccountCreationScheduled: onAccount('import_process.creation_scheduled', (d) => ({
    is_dry_run: d.isDryRun,
    schedule_window_start: d.windowStart,
    schedule_window_end: d.windowEnd,
  })),
  AccountCreationFinished: onAccount('import_process.creation_finished', (d) => ({ status: d.outcome, error_code: d.error?.code ?? null })),
  AccountCreationCancelled: onAccount('import_process.creation_cancelled'),
  AccountImportAttemptRefused: onAccount('import_process.attempt_refused', (d) => ({ operation: d.operation, dry_run: d.dryRun, code: d.code })),
  AccountMarkedToSkip: onAccount('import_process.marked_to_skip'),
  AccountTransferStatusChanged: onAccount('transfer_status.changed', (d) => ({ from: d.from, to: d.to })),
  AccountNoteCreated: onAccount('note.created', (d) => ({ created_at: d.createdAt, is_pinned: d.isPinned, source: d.source })),
  LedgerTransactionAdded: onAccount('transaction.added', ({ transaction }) => ({
    transaction_id: transaction.transactionId,
    type: transaction.type,
    transaction_date: transaction.transactionDate,
    amount: formatCents(transaction.amountCents),
  })),
  HistoricalStatementImported: onAccount('historical_statement.imported', (d) => ({
    statement_id: d.statementId,
    bill_period_from_date: d.billPeriodFromDate,
    bill_period_to_date: d.billPeriodToDate,
  })),
  PaymentInstructionCreated: onAccount('payment_instruction.created', (d) => ({ vendor: d.vendor, reference: d.reference, type: d.type })),
  ImportSupplierStatusChanged: (e) => ({
    type: 'import_supplier.status_changed',
    scope: { supplier: e.data.code },
    data: { from: e.data.from, to: e.data.to },
  }),
  BusinessCreated: onBusiness('business.created'),
  BusinessContractAdded: onBusiness('business.contract_added', (d) => ({ identifier: d.identifier })),
  BusinessPaymentInstructionCreated: onBusiness('business.payment_instruction_created', (d) => ({
    vendor: d.vendor,
    reference: d.reference,
    type: d.type,
    external_account_numbers: d.accounts.map((account) => account.externalAccountNumber),
  })),
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
