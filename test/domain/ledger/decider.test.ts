import { describe, expect, it } from 'vitest';
import { ledgerDecider as decider, type ImportTransactions } from '../../../src/domain/ledger/decider.js';
import { movedDescription } from '../../../src/domain/ledger/ledger-transaction.js';
import { TransactionImportError } from '../../../src/domain/ledger/transaction-import-error.js';
import type { TransactionInput } from '../../../src/domain/ledger/transaction-payload.js';
import { given } from '../../support/given.js';
import {
  base,
  imported,
  noteCreated,
  processed,
  recordedCharge,
  staged,
  statementImported,
  transactionAdded,
} from '../account-records-fixtures.js';

const charge = (id: string, date: string, amount = 1250): TransactionInput => ({
  transaction_id: id,
  transaction_date: date,
  amount,
  type: 'CHARGE',
  reason: 'IMPORTED_CHARGE',
});

const supplyCharge = (id: string, productCode: string): TransactionInput => ({
  transaction_id: id,
  transaction_date: '2025-07-31',
  amount: 2618,
  type: 'SUPPLY_CHARGE',
  product_code: productCode,
  line_items: [{ rate_band: 'BASE', start_date: '2025-07-01', end_date: '2025-07-31', number_of_units: '110', net_amount: 2182 }],
  tax_items: [{ amount: 436, tax_type: 'VAT', value_taxed: '21.82', rate: '0.2', unit_type: 'PROPORTION' }],
});

const importTransactions = (transactions: TransactionInput[], extra: Partial<ImportTransactions> = {}): ImportTransactions => ({
  type: 'ImportTransactions',
  ...base,
  transactions,
  checkPreviouslyAdded: true,
  forceAddToCurrentStatement: true,
  existingProductCodes: new Set(['ELEC-FIXE-2025']),
  ...extra,
});

const added = (id: string, date: string, amount = 1250) => transactionAdded(recordedCharge(id, date, amount));

describe('ledger decider (spec 4.10): the account and the facts', () => {
  it('the account must be imported; the supplier Ongoing', () => {
    given(decider, [staged()]).when(importTransactions([charge('T1', '2025-07-02')])).thenFails('account_not_found');
    given(decider, imported).when(importTransactions([charge('T1', '2025-07-02')], { supplierStatus: 'Complete' })).thenFails('import_supplier_migration_not_ongoing');
  });

  it('a date after the clock\'s day is transaction_in_future; today is fine', () => {
    const error = given(decider, imported)
      .when(importTransactions([charge('T1', '2026-11-21'), charge('T2', '2026-11-22')]))
      .thenFails('transactions_failed_validation');
    expect(error.errors.map((e) => [e.code, e.attr])).toEqual([['transaction_in_future', 'transactions.1.transaction_date']]);
  });

  it('a SUPPLY_CHARGE names an existing product (product_code_does_not_exist)', () => {
    given(decider, imported).when(importTransactions([supplyCharge('T1', 'ELEC-FIXE-2025')])).then([
      transactionAdded({
        ...recordedCharge('T1', '2025-07-31', 2618),
        type: 'SUPPLY_CHARGE',
        reason: null,
        productCode: 'ELEC-FIXE-2025',
        lineItems: [{ rateBand: 'BASE', startDate: '2025-07-01', endDate: '2025-07-31', numberOfUnits: '110', netAmountCents: 2182, pricePerUnit: null, units: null }],
        taxItems: [{ amountCents: 436, taxType: 'VAT', valueTaxed: '21.82', rate: '0.2', unitType: 'PROPORTION' }],
      }),
    ]);
    const error = given(decider, imported).when(importTransactions([supplyCharge('T1', 'NOPE')])).thenFails('transactions_failed_validation');
    expect(error.errors.map((e) => [e.code, e.attr])).toEqual([['product_code_does_not_exist', 'transactions.0.product_code']]);
  });
});

describe('ledger decider: the open statement period', () => {
  it('starts the day after last_billed_to_date: a transaction on that day is added as is', () => {
    given(decider, imported).when(importTransactions([charge('T1', '2025-07-01')])).then([added('T1', '2025-07-01')]);
  });

  it('force (default): an earlier transaction is moved to the first day, described, and one pinned note lists the moved ones', () => {
    const events = decider.decide(
      importTransactions([charge('T1', '2025-06-30'), charge('T2', '2025-07-03'), charge('T3', '2024-01-01')]),
      imported.reduce(decider.evolve, decider.initialState),
    );
    expect(events.map((e) => e.type)).toEqual(['LedgerTransactionAdded', 'LedgerTransactionAdded', 'LedgerTransactionAdded', 'AccountNoteCreated']);
    expect(events[0]).toEqual(
      transactionAdded(recordedCharge('T1', '2025-07-01', 1250, { originalTransactionDate: '2025-06-30', description: movedDescription('2025-06-30', '2025-07-01') })),
    );
    expect(events[1]).toEqual(added('T2', '2025-07-03'));
    const note = events[3];
    if (note?.type !== 'AccountNoteCreated') throw new Error('expected a note');
    expect(note.data).toMatchObject({ sequence: 1, isPinned: true, source: 'transaction_import', createdAt: '2026-11-21T10:00:00Z' });
    expect(note.data.body).toBe(
      'Imported transactions dated before the open statement period were moved to its first day, 2025-07-01: T1 (dated 2025-06-30), T3 (dated 2024-01-01).',
    );
  });

  it('no force: the first transaction before the period fails the whole request with its data', () => {
    const error = given(decider, imported)
      .when(importTransactions([charge('T0', '2025-07-02'), charge('T1', '2025-06-30'), charge('T2', '2025-06-29')], { forceAddToCurrentStatement: false }))
      .thenFails('transaction_not_in_open_statement_period');
    expect(error).toBeInstanceOf(TransactionImportError);
    expect((error as TransactionImportError).transactionData).toEqual({
      transaction_id: 'T1',
      transaction_date: '2025-06-30',
      amount: '12.50',
      type: 'CHARGE',
      reason: 'IMPORTED_CHARGE',
    });
  });

  it('historical statements move it: the latest of last_billed_to_date and every statement end', () => {
    const history = [...imported, statementImported('S1', '2025-07-01', '2025-07-31'), statementImported('S0', '2025-05-01', '2025-05-31')];
    given(decider, history)
      .when(importTransactions([charge('T1', '2025-07-31')], { forceAddToCurrentStatement: false }))
      .thenFails('transaction_not_in_open_statement_period');
    given(decider, history).when(importTransactions([charge('T1', '2025-08-01')], { forceAddToCurrentStatement: false })).then([added('T1', '2025-08-01')]);
  });

  it('without last_billed_to_date or statements there is no lower bound', () => {
    given(decider, [staged(null), processed]).when(importTransactions([charge('T1', '1999-01-01')], { forceAddToCurrentStatement: false })).then([
      added('T1', '1999-01-01'),
    ]);
  });
});

describe('ledger decider: never duplicated', () => {
  const history = [...imported, added('T1', '2025-07-02')];

  it('check_previously_added (default): a known id is skipped, the new ones added', () => {
    given(decider, history).when(importTransactions([charge('T1', '2025-07-02'), charge('T2', '2025-07-02')])).then([added('T2', '2025-07-02')]);
  });

  it('check_previously_added=false: a known id still is never stored twice; the request fails as a TRANSACTION_IMPORT_ERROR', () => {
    const error = given(decider, history)
      .when(importTransactions([charge('T2', '2025-07-02'), charge('T1', '2025-07-02')], { checkPreviouslyAdded: false }))
      .thenFails('transaction_already_added');
    expect(error.errors[0]?.attr).toBe('transactions.1.transaction_id');
  });

  it('a known id before the period is skipped (check) rather than moved', () => {
    given(decider, history).when(importTransactions([charge('T1', '2025-01-01')])).then([]);
  });

  it('the pinned note follows the notes\' rule and numbering', () => {
    const events = decider.decide(
      importTransactions([charge('T9', '2025-01-01')]),
      [...imported, noteCreated(1, 'earlier', '2025-07-01T00:00:00Z')].reduce(decider.evolve, decider.initialState),
    );
    expect(events[1]).toMatchObject({ type: 'AccountNoteCreated', data: { sequence: 2 } });
  });
});
