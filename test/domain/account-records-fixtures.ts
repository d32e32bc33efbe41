import type { AccountProcessed, AccountStaged } from '../../events/account-import-process.js';
import type { AccountNoteCreated, HistoricalStatementImported, LedgerTransaction, LedgerTransactionAdded } from '../../events/account-records.js';

/** Events of one account stream for the post-import deciders' given/when/then tests. */

export const SUPPLIER = 'LEGACY_ENERGIE';
export const EXT = 'LEG-0000001';
export const NOW = '2026-11-21T10:00:00.000Z';
export const ref = { importSupplier: SUPPLIER, externalAccountNumber: EXT };

export const staged = (lastBilledToDate: string | null = '2025-06-30'): AccountStaged => ({
  type: 'AccountStaged',
  version: 1,
  data: { ...ref, payload: lastBilledToDate === null ? {} : { last_billed_to_date: lastBilledToDate }, stagedAt: NOW },
});

export const processed: AccountProcessed = {
  type: 'AccountProcessed',
  version: 1,
  data: { ...ref, platformAccountNumber: 'A-11111111', operationsTeamName: 'Migrations', processedAt: NOW },
};

export const imported = [staged(), processed];

export const base = { ...ref, supplierStatus: 'Ongoing' as const, now: NOW };

export function noteCreated(sequence: number, body: string | null, createdAt: string, extra: Partial<AccountNoteCreated['data']> = {}): AccountNoteCreated {
  return {
    type: 'AccountNoteCreated',
    version: 1,
    data: {
      ...ref,
      sequence,
      body,
      createdAt,
      createdAtGiven: true,
      isPinned: false,
      unpinAt: null,
      documentPaths: [],
      source: 'import_request',
      ...extra,
    },
  };
}

export function statementImported(statementId: string, from: string, to: string, source: 'import_request' | 'staged_payload' = 'import_request'): HistoricalStatementImported {
  return {
    type: 'HistoricalStatementImported',
    version: 1,
    data: {
      ...ref,
      statementId,
      billPeriodFromDate: from,
      billPeriodToDate: to,
      issuedDate: null,
      number: null,
      grossAmountCents: null,
      statementPath: null,
      source,
      importedAt: NOW,
    },
  };
}

export function recordedCharge(id: string, date: string, amountCents: number, extra: Partial<LedgerTransaction> = {}): LedgerTransaction {
  return {
    transactionId: id,
    type: 'CHARGE',
    transactionDate: date,
    originalTransactionDate: null,
    description: null,
    amountCents,
    reason: 'IMPORTED_CHARGE',
    displayNote: null,
    note: null,
    reference: null,
    paymentType: null,
    productCode: null,
    supplyPointIdentifier: null,
    lineItems: null,
    taxItems: null,
    ...extra,
  };
}

export function transactionAdded(transaction: LedgerTransaction): LedgerTransactionAdded {
  return { type: 'LedgerTransactionAdded', version: 1, data: { ...ref, transaction, addedAt: NOW } };
}
