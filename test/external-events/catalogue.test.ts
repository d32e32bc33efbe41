import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import {
  externalEventTypes,
  isEventTypeFilter,
  matchesEventTypes,
  sourceEventTypes,
  toExternalEvent,
  type ExternalEventType,
  type RoutedEvent,
} from '../../src/external-events/catalogue.js';
import { externalEventSchema } from '../../src/external-events/event-types.js';

/** The catalogue's mapping, one stored event of each kind at a time: its type, data, scope and ordering key. */

const at = '2026-11-29T10:00:00.123Z';
const acc = { importSupplier: 'SUP', externalAccountNumber: 'EXT-1' };
const biz = { importSupplier: 'SUP', externalBusinessIdentifier: 'BIZ-1' };
const account = { import_supplier: 'SUP', external_account_number: 'EXT-1' };
const business = { import_supplier: 'SUP', external_business_identifier: 'BIZ-1' };
const ofAccount = { scope: { supplier: 'SUP' }, orderingKey: 'account:SUP/EXT-1' };
const ofBusiness = { scope: { supplier: 'SUP' }, orderingKey: 'business:SUP/BIZ-1' };
const refusal = { ...acc, detail: 'Refused.', code: 'c', errors: [{ code: 'e', attr: 'a.0' }], accountStreamVersion: 1, refusedAt: at };
const transaction = {
  transactionId: 'TX-1', type: 'CHARGE', transactionDate: '2026-11-01', originalTransactionDate: null, description: null, amountCents: -1250,
  reason: 'IMPORTED_CHARGE', displayNote: 'shown to the customer', note: 'private', reference: null, paymentType: null, productCode: null,
  supplyPointIdentifier: null, lineItems: null, taxItems: null,
} as const;
const creation = { ...acc, taskId: 'T-1' };

let position = 0;
function stored(event: LedgerEvent): StoredEvent<LedgerEvent> {
  position++;
  return { globalPosition: position, streamId: 's', streamPosition: 1, event, recordedAt: at, metadata: { eventId: `ev-${position}`, actor: 'k', requestId: null, correlationId: null, causationId: null } };
}
/** A stored event of which only the fields the catalogue reads are given (products carry many more). */
const partial = (type: string, data: Record<string, unknown>) => ({ type, version: 1, data }) as unknown as LedgerEvent;

type Case = [LedgerEvent, ExternalEventType, Record<string, unknown>, Pick<RoutedEvent, 'scope' | 'orderingKey'>];
const cases: Case[] = [
  [{ type: 'AccountStaged', version: 1, data: { ...acc, payload: { customers: [{ given_name: 'Claire' }] }, stagedAt: at } }, 'data_import.import_process.staged-v1', account, ofAccount],
  [{ type: 'AccountRestaged', version: 1, data: { ...acc, payload: {}, stagedAt: at } }, 'data_import.import_process.restaged-v1', account, ofAccount],
  [
    { type: 'AccountProcessed', version: 1, data: { ...acc, platformAccountNumber: 'A-1', operationsTeamName: 'Team', processedAt: at } },
    'data_import.import_process.complete-v1',
    { ...account, platform_account_number: 'A-1', operations_team_name: 'Team', business_contract_identifier: null },
    ofAccount,
  ],
  [
    { type: 'AccountProcessDryRunSucceeded', version: 1, data: { ...acc, platformAccountNumber: 'A-2', operationsTeamName: 'Team', accountStreamVersion: 1, ranAt: at } },
    'data_import.import_process.dry_run_complete-v1',
    { ...account, platform_account_number: 'A-2', operations_team_name: 'Team' },
    ofAccount,
  ],
  [{ type: 'AccountImportAttemptRefused', version: 1, data: { ...refusal, operation: 'process', dryRun: false } }, 'data_import.import_process.error-v1', { ...account, operation: 'process', code: 'c', errors: [{ code: 'e', attr: 'a.0' }] }, ofAccount],
  [{ type: 'AccountImportAttemptRefused', version: 1, data: { ...refusal, operation: 'schedule', dryRun: true } }, 'data_import.import_process.dry_run_error-v1', { ...account, operation: 'schedule', code: 'c', errors: [{ code: 'e', attr: 'a.0' }] }, ofAccount],
  [{ type: 'AccountImportAttemptRefused', version: 1, data: { ...refusal, operation: 'historical_statements', dryRun: false } }, 'data_import.post_import.error-v1', { ...account, record_type: 'historical_statement', code: 'c', errors: [{ code: 'e', attr: 'a.0' }] }, ofAccount],
  [{ type: 'AccountImportAttemptRefused', version: 1, data: { ...refusal, operation: 'transactions', dryRun: true } }, 'data_import.post_import.dry_run_error-v1', { ...account, record_type: 'transaction', code: 'c', errors: [{ code: 'e', attr: 'a.0' }] }, ofAccount],
  [{ type: 'AccountMarkedToSkip', version: 1, data: { ...acc, markedAt: at } }, 'data_import.import_process.cancelled-v1', account, ofAccount],
  [{ type: 'AccountTransferStatusChanged', version: 1, data: { ...acc, from: 'PENDING', to: 'IN_PROGRESS', changedAt: at } }, 'data_import.transfer_status.changed-v1', { ...account, from: 'PENDING', to: 'IN_PROGRESS' }, ofAccount],
  [
    { type: 'AccountNoteCreated', version: 1, data: { ...acc, sequence: 2, body: 'Customer asked', createdAt: at, createdAtGiven: true, isPinned: true, unpinAt: null, documentPaths: ['d.pdf'], source: 'import_request' } },
    'data_import.post_import.completed-v1',
    { ...account, record_type: 'note', sequence: 2, created_at: at, is_pinned: true, source: 'import_request' },
    ofAccount,
  ],
  [
    { type: 'LedgerTransactionAdded', version: 1, data: { ...acc, transaction, addedAt: at } },
    'data_import.post_import.completed-v1',
    { ...account, record_type: 'transaction', transaction_id: 'TX-1', transaction_type: 'CHARGE', transaction_date: '2026-11-01', amount: '-12.50' },
    ofAccount,
  ],
  [
    {
      type: 'HistoricalStatementImported', version: 1,
      data: { ...acc, statementId: 'ST-1', billPeriodFromDate: '2026-01-01', billPeriodToDate: '2026-01-31', issuedDate: null, number: null, grossAmountCents: 100, statementPath: 's.pdf', source: 'staged_payload', importedAt: at },
    },
    'data_import.post_import.completed-v1',
    { ...account, record_type: 'historical_statement', statement_id: 'ST-1', bill_period_from_date: '2026-01-01', bill_period_to_date: '2026-01-31', source: 'staged_payload' },
    ofAccount,
  ],
  [
    { type: 'PaymentInstructionCreated', version: 1, data: { ...acc, platformAccountNumber: 'A-1', vendor: 'STRIPE', reference: 'pm_1', type: 'CARD', vendorDetails: { iban: 'FR76 3000' }, createdAt: at } },
    'data_import.post_import.completed-v1',
    { ...account, record_type: 'payment_instruction', platform_account_number: 'A-1', vendor: 'STRIPE', reference: 'pm_1', instruction_type: 'CARD' },
    ofAccount,
  ],
  [
    { type: 'TransactionsDryRunSucceeded', version: 1, data: { ...acc, added: [transaction], accountStreamVersion: 3, ranAt: at } },
    'data_import.post_import.dry_run_completed-v1',
    { ...account, record_type: 'transaction', transaction_ids: ['TX-1'] },
    ofAccount,
  ],
  [
    { type: 'AccountCreationScheduled', version: 1, data: { ...creation, isDryRun: false, operationsTeamName: 'Team', windowStart: null, windowEnd: at, scheduledAt: at } },
    'data_import.account_creation.scheduled-v1',
    { ...account, task_id: 'T-1', is_dry_run: false, operations_team_name: 'Team', schedule_window_start: null, schedule_window_end: at },
    ofAccount,
  ],
  [{ type: 'AccountCreationCancelled', version: 1, data: { ...creation, cancelledAt: at } }, 'data_import.account_creation.cancelled-v1', { ...account, task_id: 'T-1' }, ofAccount],
  [
    { type: 'AccountCreationFinished', version: 1, data: { ...creation, outcome: 'PROCESSED', platformAccountNumber: 'A-1', error: null, finishedAt: at } },
    'account.created-v1',
    { ...account, task_id: 'T-1', platform_account_number: 'A-1' },
    ofAccount,
  ],
  [
    { type: 'AccountCreationFinished', version: 1, data: { ...creation, outcome: 'DRY_RUN_SUCCEEDED', platformAccountNumber: null, error: null, finishedAt: at } },
    'data_import.account_creation.dry_run_complete-v1',
    { ...account, task_id: 'T-1' },
    ofAccount,
  ],
  [
    { type: 'AccountCreationFinished', version: 1, data: { ...creation, outcome: 'DRY_RUN_ERRORED', platformAccountNumber: null, error: { code: 'schedule_window_elapsed', detail: 'd' }, finishedAt: at } },
    'data_import.account_creation.failed-v1',
    { ...account, task_id: 'T-1', is_dry_run: true, error_code: 'schedule_window_elapsed' },
    ofAccount,
  ],
  [
    { type: 'ImportSupplierStatusChanged', version: 1, data: { code: 'SUP', from: 'Ongoing', to: 'Paused', changedAt: at } },
    'data_import.import_supplier.status_changed-v1',
    { import_supplier: 'SUP', from: 'Ongoing', to: 'Paused' },
    { scope: { supplier: 'SUP' }, orderingKey: 'supplier:SUP' },
  ],
  [
    { type: 'BusinessCreated', version: 1, data: { ...biz, business: { business_type: 'EURL', company_name: 'Boulangerie Martin', siret: '44306184100047' }, createdAt: at } },
    'data_import.business.created-v1',
    business,
    ofBusiness,
  ],
  [{ type: 'BusinessContractAdded', version: 1, data: { ...biz, identifier: 'CTR-1', contract: {}, addedAt: at } }, 'data_import.business_contract.added-v1', { ...business, business_contract_identifier: 'CTR-1' }, ofBusiness],
  [
    partial('BusinessPaymentInstructionCreated', { ...biz, vendor: 'STRIPE', reference: 'pm_2', type: 'DIRECT_DEBIT', validFrom: null, accounts: [{ externalAccountNumber: 'EXT-1', platformAccountNumber: 'A-1' }] }),
    'data_import.business_payment_instruction.created-v1',
    { ...business, vendor: 'STRIPE', reference: 'pm_2', instruction_type: 'DIRECT_DEBIT', accounts: [{ external_account_number: 'EXT-1', platform_account_number: 'A-1' }] },
    ofBusiness,
  ],
  [partial('ProductCreated', { code: 'P-1', marketName: 'FRA_GAS' }), 'data_import.product.created-v1', { import_supplier: null, code: 'P-1', market_name: 'FRA_GAS' }, { scope: { everyone: true }, orderingKey: 'catalogue' }],
  [partial('RatesAdded', { code: 'P-1', rates: [{}, {}] }), 'data_import.product.rates_added-v1', { import_supplier: null, code: 'P-1', rates_added: 2 }, { scope: { everyone: true }, orderingKey: 'catalogue' }],
  [
    partial('SupplyPointImported', { batchId: 'B-1', sequence: 1, supplyType: 'GAS', identifier: 'GI000001', address: { line1: '1 rue', postcode: '75001', city: 'Paris' } }),
    'data_import.supply_point.imported-v1',
    { import_supplier: null, batch_id: 'B-1', supply_type: 'GAS', identifier: 'GI000001' },
    { scope: { batchId: 'B-1' }, orderingKey: 'batch:B-1' },
  ],
  [
    partial('SupplyPointPopulateRequestErrored', { batchId: 'B-1', sequence: 2, supplyType: 'ELECTRICITY', identifier: '10000000000001', attempt: 1, reason: 'unknown PRM' }),
    'data_import.supply_point.error-v1',
    { import_supplier: null, batch_id: 'B-1', supply_type: 'ELECTRICITY', identifier: '10000000000001', reason: 'unknown PRM' },
    { scope: { batchId: 'B-1' }, orderingKey: 'batch:B-1' },
  ],
];

describe('toExternalEvent', () => {
  it.each(cases.map((c) => [`${c[0].type} -> ${c[1]}`, ...c] as const))('%s', (_name, event, type, data, routing) => {
    const source = stored(event);
    const routed = toExternalEvent(source);
    expect(routed).toEqual({ position: source.globalPosition, event: { id: source.metadata.eventId, type, timestamp: '2026-11-29T10:00:00Z', data }, ...routing });
    // The payload is exactly what its type's schema describes: parsing drops nothing and changes nothing.
    const payload = { type: routed!.event.type, timestamp: routed!.event.timestamp, data: routed!.event.data };
    expect(externalEventSchema(type).parse(payload)).toEqual(payload);
  });

  it('gives every type of the catalogue a source, and reads only the stored types it maps', () => {
    expect(new Set(cases.map((c) => c[1]))).toEqual(new Set(externalEventTypes));
    expect(new Set(cases.map((c) => c[0].type))).toEqual(new Set(sourceEventTypes));
  });

  it('leaves out what is no part of the catalogue: bookkeeping such as claims', () => {
    const claim: LedgerEvent = { type: 'AccountCreationClaimed', version: 1, data: { ...creation, claimId: 'C-1', claimedAt: at, leaseExpiresAt: at } };
    expect(toExternalEvent(stored(claim))).toBeNull();
    expect(sourceEventTypes).not.toContain('AccountCreationClaimed');
  });
});

describe('event type filters', () => {
  it('match exact names and `prefix.*` on whole name segments; an empty filter matches all', () => {
    const type = 'data_import.import_process.complete-v1';
    expect(matchesEventTypes([], type)).toBe(true);
    expect(matchesEventTypes([type], type)).toBe(true);
    expect(matchesEventTypes(['data_import.*'], type)).toBe(true);
    expect(matchesEventTypes(['data_import.import_process.*'], type)).toBe(true);
    expect(matchesEventTypes(['account.*', 'data_import.post_import.*'], type)).toBe(false);
    expect(matchesEventTypes(['data_imp.*'], type)).toBe(false);
    expect(matchesEventTypes(['data_import.import_process.complete'], type)).toBe(false);
    expect(matchesEventTypes(['account.*'], 'account.created-v1')).toBe(true);
  });

  it('are valid when they name a known type or a prefix of at least one', () => {
    for (const entry of [...externalEventTypes, 'data_import.*', 'account.*', 'data_import.import_process.*', 'data_import.post_import.*']) {
      expect(isEventTypeFilter(entry), entry).toBe(true);
    }
    for (const entry of ['', '*', '.*', 'data_import', 'data_imp.*', 'nothing.*', 'data_import.import_process.complete', 'account.created-v1.*', 'DATA_IMPORT.*']) {
      expect(isEventTypeFilter(entry), entry).toBe(false);
    }
  });

  it('property: every dot-prefix of a known type, as `prefix.*`, is a valid filter matching it; a known type matches only itself', () => {
    fc.assert(
      fc.property(fc.constantFrom(...externalEventTypes), fc.constantFrom(...externalEventTypes), fc.nat(), (type, other, cut) => {
        const segments = type.split('.');
        const prefix = `${segments.slice(0, 1 + (cut % (segments.length - 1))).join('.')}.*`;
        expect(isEventTypeFilter(prefix)).toBe(true);
        expect(matchesEventTypes([prefix], type)).toBe(true);
        expect(matchesEventTypes([type], other)).toBe(type === other);
      }),
    );
  });
});
