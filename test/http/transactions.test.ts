import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { accountProcessDryRunStreamId } from '../../events/account-process-dry-run.js';
import { stageAccount } from '../../src/application/account-import-processes.js';
import { setImportSupplierStatus } from '../../src/application/operator.js';
import { examplePayload, importedExampleAccount } from '../support/account-records.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { SUPPLIER, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/** Spec 4.10 through the real app over a temp-file SQLite database. */

const TRANSACTIONS = '/v1/data-import/transactions/create/';
const STATEMENTS = '/v1/data-import/historical-statements/create/';
const EXT = 'LEG-0000001';
type Json = any;
const example = (): Json => structuredClone(loadExample('transactions.json'));
const withTransactions = (...transactions: Json[]): Json => ({ import_supplier: SUPPLIER, external_account_number: EXT, transactions });
const charge = (id: string, date: string, amount: number = 12.5): Json => ({
  transaction_id: id,
  transaction_date: date,
  amount,
  type: 'CHARGE',
  reason: 'IMPORTED_CHARGE',
});

let api: TestApi;
let token: string;

beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api);
});

afterEach(() => api.close());

const streamVersion = () => api.ledger.store.streamVersion(accountImportProcessStreamId(SUPPLIER, EXT));
const results = async (res: Response) => ((await res.json()) as { results: { status: string; transaction_data: Json }[] }).results;

describe('POST transactions/create/ (spec 4.10)', () => {
  it('adds the example transactions: 201, every one TRANSACTION_ADDED_TO_ACCOUNT, amounts as two-decimal strings', async () => {
    await importedExampleAccount(api.ledger);
    const res = await api.post(TRANSACTIONS, example(), token);
    expect(res.status).toBe(201);
    const items = await results(res);
    expect(items.map((r) => r.status)).toEqual(Array(5).fill('TRANSACTION_ADDED_TO_ACCOUNT'));
    expect(items[0]!.transaction_data).toEqual({
      transaction_id: 'TX-0001',
      transaction_date: '2025-07-02',
      amount: '35.20',
      type: 'CHARGE',
      reason: 'IMPORTED_CHARGE',
      display_note: 'Solde reporté de votre ancien fournisseur',
      note: 'Legacy closing balance',
    });
    expect(items[4]!.transaction_data).toEqual({
      transaction_id: 'TX-0005',
      transaction_date: '2025-07-31',
      amount: '26.18',
      type: 'SUPPLY_CHARGE',
      reason: 'IMPORTED_CHARGE',
      display_note: 'Consommation juillet',
      product_code: 'ELEC-FIXE-2025',
      line_items: [
        { rate_band: 'BASE', start_date: '2025-07-01', end_date: '2025-07-31', number_of_units: '110', net_amount: '21.82', price_per_unit: '0.1984', units: ['110'] },
      ],
      tax_items: [{ amount: '4.36', tax_type: 'VAT', value_taxed: '21.82', rate: '0.2', unit_type: 'PROPORTION' }],
    });
    // Charges, supply charges and repayments raise what is owed; credits and payments lower it.
    const ledger = await api.ledger.read.accountLedger(SUPPLIER, EXT);
    expect(ledger.balanceCents).toBe(3520 - 1000 - 6450 + 500 + 2618);
    expect(ledger.lines.map((l) => [l.transaction.transactionId, l.runningBalanceCents])).toEqual([
      ['TX-0001', 3520],
      ['TX-0002', 2520],
      ['TX-0003', -3930],
      ['TX-0004', -3430],
      ['TX-0005', -812],
    ]);
  });

  it('sent again: every one TRANSACTION_ALREADY_EXISTS (as sent), nothing appended', async () => {
    await importedExampleAccount(api.ledger);
    await api.post(TRANSACTIONS, example(), token);
    const version = await streamVersion();
    const again = await api.post(TRANSACTIONS, example(), token);
    expect(again.status).toBe(201);
    const items = await results(again);
    expect(items.map((r) => r.status)).toEqual(Array(5).fill('TRANSACTION_ALREADY_EXISTS'));
    expect(items[1]!.transaction_data).toMatchObject({ transaction_id: 'TX-0002', amount: '10.00' });
    expect(await streamVersion()).toBe(version);
  });

  it('check_previously_added=false: a known id is a TRANSACTION_IMPORT_ERROR and the request adds nothing', async () => {
    await importedExampleAccount(api.ledger);
    await api.post(TRANSACTIONS, withTransactions(charge('TX-0001', '2025-07-02')), token);
    const version = await streamVersion();
    const res = await api.post(`${TRANSACTIONS}?check_previously_added=false`, withTransactions(charge('TX-NEW', '2025-07-03'), charge('TX-0001', '2025-07-02')), token);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      status: 'TRANSACTION_IMPORT_ERROR',
      code: 'transaction_already_added',
      error_detail: expect.stringContaining('TX-0001'),
      transaction_data: { transaction_id: 'TX-0001', transaction_date: '2025-07-02', amount: '12.50', type: 'CHARGE', reason: 'IMPORTED_CHARGE' },
    });
    expect(await streamVersion()).toBe(version);
    expect((await api.ledger.read.accountLedger(SUPPLIER, EXT)).lines).toHaveLength(1);
  });

  it('before the open period (the day after last_billed_to_date 2025-06-30), forced by default: moved to 2025-07-01, described, one pinned note', async () => {
    await importedExampleAccount(api.ledger);
    const res = await api.post(
      `${TRANSACTIONS}?force_add_to_current_statement=true`,
      withTransactions(charge('TX-OLD-1', '2025-06-15'), charge('TX-IN', '2025-07-05'), charge('TX-OLD-2', '2025-01-31')),
      token,
    );
    expect(res.status).toBe(201);
    const items = await results(res);
    expect(items[0]!.transaction_data).toMatchObject({
      transaction_id: 'TX-OLD-1',
      transaction_date: '2025-07-01',
      original_transaction_date: '2025-06-15',
      description: expect.stringContaining('2025-06-15'),
    });
    expect(items[1]!.transaction_data).not.toHaveProperty('original_transaction_date');
    const pinned = (await api.ledger.read.listAccountNotes(SUPPLIER, EXT)).filter((n) => n.isPinned);
    expect(pinned).toHaveLength(1);
    expect(pinned[0]).toMatchObject({ source: 'transaction_import', createdAt: '2026-11-21T10:00:00Z' });
    expect(pinned[0]!.body).toContain('TX-OLD-1 (dated 2025-06-15)');
    expect(pinned[0]!.body).toContain('TX-OLD-2 (dated 2025-01-31)');
    expect(pinned[0]!.body).not.toContain('TX-IN');
  });

  it('dry_run: true answers what the import would (moved dates included), stores nothing, and records the run on the dry-run stream', async () => {
    await importedExampleAccount(api.ledger);
    const version = await streamVersion();
    const request = withTransactions(charge('TX-OLD-1', '2025-06-15'), charge('TX-IN', '2025-07-05'));
    const dry = await api.post(TRANSACTIONS, { ...request, dry_run: true }, token);
    expect(dry.status, await dry.clone().text()).toBe(201);
    const rehearsed = await results(dry);
    expect(rehearsed.map((r) => r.status)).toEqual(['TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ADDED_TO_ACCOUNT']);
    expect(rehearsed[0]!.transaction_data).toMatchObject({ transaction_id: 'TX-OLD-1', transaction_date: '2025-07-01', original_transaction_date: '2025-06-15' });
    // Nothing stored: not the transactions, not the pinned note about the moved one.
    expect(await streamVersion()).toBe(version);
    expect((await api.ledger.read.accountLedger(SUPPLIER, EXT)).lines).toHaveLength(0);
    expect((await api.ledger.read.listAccountNotes(SUPPLIER, EXT)).filter((n) => n.source === 'transaction_import')).toHaveLength(0);
    const recorded = await api.ledger.store.readStream(accountProcessDryRunStreamId(SUPPLIER, EXT));
    expect(recorded.map((stored) => stored.event)).toMatchObject([
      { type: 'TransactionsDryRunSucceeded', data: { added: [{ transactionId: 'TX-OLD-1', transactionDate: '2025-07-01' }, { transactionId: 'TX-IN' }], accountStreamVersion: version } },
    ]);
    // The real import then gives the same answer, and stores it.
    const real = await api.post(TRANSACTIONS, request, token);
    expect(await results(real)).toEqual(rehearsed);
    expect((await api.ledger.read.accountLedger(SUPPLIER, EXT)).lines).toHaveLength(2);
  });

  it('dry_run: true is refused by every rule a real import applies, and nothing is recorded', async () => {
    await importedExampleAccount(api.ledger);
    const res = await api.post(`${TRANSACTIONS}?force_add_to_current_statement=false`, { ...withTransactions(charge('TX-OLD-1', '2025-06-15')), dry_run: true }, token);
    expect(res.status).toBe(400);
    expect(await api.ledger.store.streamVersion(accountProcessDryRunStreamId(SUPPLIER, EXT))).toBe(0);
    await expectErrorBody(await api.post(TRANSACTIONS, { ...withTransactions(charge('TX-1', '2025-07-05')), dry_run: 'yes' }, token), 400);
  });

  it('force_add_to_current_statement=false: 400 TRANSACTION_IMPORT_ERROR naming the first failing transaction, nothing added', async () => {
    await importedExampleAccount(api.ledger);
    const version = await streamVersion();
    const res = await api.post(
      `${TRANSACTIONS}?force_add_to_current_statement=false`,
      withTransactions(charge('TX-IN', '2025-07-05'), charge('TX-OLD-1', '2025-06-15'), charge('TX-OLD-2', '2025-06-16')),
      token,
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json;
    expect(Object.keys(body).sort()).toEqual(['code', 'error_detail', 'status', 'transaction_data']);
    expect(body).toMatchObject({ status: 'TRANSACTION_IMPORT_ERROR', code: 'transaction_not_in_open_statement_period' });
    expect(body.transaction_data).toMatchObject({ transaction_id: 'TX-OLD-1', transaction_date: '2025-06-15' });
    expect(body.error_detail).toContain('2025-07-01');
    expect(await streamVersion()).toBe(version);
  });

  it('a historical statement moves the open period: after one ending 2025-07-31, a 2025-07-15 transaction is moved to 2025-08-01', async () => {
    await importedExampleAccount(api.ledger);
    const statement = { bill_period_from_date: '2025-07-01', bill_period_to_date: '2025-07-31', statement_id: 'ST-07', issued_date: '2025-08-02', number: 'F-07', gross_amount: 12 };
    expect((await api.post(STATEMENTS, { import_supplier: SUPPLIER, external_account_number: EXT, statements: [statement] }, token)).status).toBe(201);
    const items = await results(await api.post(TRANSACTIONS, withTransactions(charge('TX-1', '2025-07-15')), token));
    expect(items[0]!.transaction_data).toMatchObject({ transaction_date: '2025-08-01', original_transaction_date: '2025-07-15' });
  });

  it.each([
    ['more than 2 decimals', { amount: 35.201 }, 'max_decimal_places', 'transactions.0.amount'],
    ['more than 10 whole digits', { amount: 12345678901 }, 'max_whole_digits', 'transactions.0.amount'],
    ['an amount string that is not a decimal (a comma)', { amount: '35,20' }, 'invalid', 'transactions.0.amount'],
    ['an amount string in exponent form', { amount: '1e3' }, 'invalid', 'transactions.0.amount'],
    ['an amount string with more than 2 decimals', { amount: '35.201' }, 'max_decimal_places', 'transactions.0.amount'],
    ['an amount string with more than 10 whole digits', { amount: '12345678901' }, 'max_whole_digits', 'transactions.0.amount'],
    ['an amount of another type', { amount: true }, 'invalid', 'transactions.0.amount'],
    ['a zero amount', { amount: 0 }, 'zero_transaction_amount', 'transactions.0.amount'],
    ['a CHARGE without reason', { reason: undefined }, 'required', 'transactions.0.reason'],
    ['an unknown type', { type: 'REFUND' }, 'invalid_choice', 'transactions.0.type'],
    ['a malformed date', { transaction_date: '2025-02-30' }, 'invalid', 'transactions.0.transaction_date'],
    ['a date in the future (the clock says 2026-11-21)', { transaction_date: '2026-11-22' }, 'transaction_in_future', 'transactions.0.transaction_date'],
  ])('%s: 400 transactions_failed_validation, nothing written', async (_name, change, code, attr) => {
    await importedExampleAccount(api.ledger);
    const version = await streamVersion();
    const res = await api.post(TRANSACTIONS, withTransactions({ ...charge('TX-1', '2025-07-02'), ...change }), token);
    const body = await expectErrorBody(res, 400, 'transactions_failed_validation');
    expect(body.errors.map((e) => ({ code: e.code, attr: e.attr }))).toEqual([{ code, attr }]);
    expect(await streamVersion()).toBe(version);
  });

  it('every decimal the platform types as a string may be sent as one: the same transactions, the same cents and texts', async () => {
    await importedExampleAccount(api.ledger);
    const asStrings = example();
    for (const tx of asStrings.transactions) {
      tx.amount = String(tx.amount);
      for (const line of tx.line_items ?? []) {
        Object.assign(line, { net_amount: '21.820', number_of_units: '110.0', price_per_unit: '0.1984', units: ['110.0000'] });
      }
      for (const tax of tx.tax_items ?? []) Object.assign(tax, { amount: '4.36', value_taxed: '21.82', rate: '.2' });
    }
    const res = await api.post(TRANSACTIONS, asStrings, token);
    expect(res.status).toBe(201);
    const fromStrings = await results(res);
    expect(fromStrings.map((r) => r.status)).toEqual(Array(5).fill('TRANSACTION_ADDED_TO_ACCOUNT'));
    const lines = (await api.ledger.read.accountLedger(SUPPLIER, EXT)).lines;

    // The same request with numbers, on a second account, reads the same.
    api.close();
    api = await createTestApi();
    token = await accessToken(api);
    await importedExampleAccount(api.ledger);
    const fromNumbers = await results(await api.post(TRANSACTIONS, example(), token));
    expect(fromStrings).toEqual(fromNumbers);
    expect(lines).toEqual((await api.ledger.read.accountLedger(SUPPLIER, EXT)).lines);
  });

  it('the platform\'s deprecated account_number may name the account instead of external_account_number', async () => {
    await importedExampleAccount(api.ledger);
    const { external_account_number: _ext, ...withoutExt } = example();
    const res = await api.post(TRANSACTIONS, { ...withoutExt, account_number: EXT }, token);
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await results(res)).map((r) => r.status)).toEqual(Array(5).fill('TRANSACTION_ADDED_TO_ACCOUNT'));
  });

  it('broken variants of the example: payment sign, supply charge total, unknown product, duplicate ids', async () => {
    await importedExampleAccount(api.ledger);
    const codes = async (payload: Json) => {
      const body = await expectErrorBody(await api.post(TRANSACTIONS, payload, token), 400, 'transactions_failed_validation');
      return body.errors.map((e) => ({ code: e.code, attr: e.attr }));
    };
    const negativePayment = example();
    negativePayment.transactions[2].amount = -64.5;
    expect(await codes(negativePayment)).toEqual([{ code: 'negative_transaction_amount', attr: 'transactions.2.amount' }]);

    const mismatch = example();
    mismatch.transactions[4].amount = 26.19;
    expect(await codes(mismatch)).toEqual([
      { code: 'ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount', attr: 'transactions.4.amount' },
    ]);

    const noLines = example();
    delete noLines.transactions[4].line_items;
    expect(await codes(noLines)).toEqual([{ code: 'required', attr: 'transactions.4.line_items' }]);

    const unknownProduct = example();
    unknownProduct.transactions[4].product_code = 'NOPE-2025';
    expect(await codes(unknownProduct)).toEqual([{ code: 'product_code_does_not_exist', attr: 'transactions.4.product_code' }]);

    const duplicates = example();
    duplicates.transactions[3].transaction_id = 'TX-0001';
    expect(await codes(duplicates)).toEqual([{ code: 'duplicate_transaction_ids', attr: 'transactions.3.transaction_id' }]);
    expect((await api.ledger.read.accountLedger(SUPPLIER, EXT)).lines).toEqual([]);
  });

  it.each(['yes', 'TRUE', '1', ''])('query parameters are parsed strictly: check_previously_added=%s is 400 invalid_query_parameter', async (value) => {
    await importedExampleAccount(api.ledger);
    const body = await expectErrorBody(await api.post(`${TRANSACTIONS}?check_previously_added=${value}`, example(), token), 400, 'invalid_query_parameter');
    expect(body.errors[0]?.attr).toBe('check_previously_added');
  });

  it('a query parameter given twice is 400 invalid_query_parameter', async () => {
    await importedExampleAccount(api.ledger);
    const res = await api.post(`${TRANSACTIONS}?force_add_to_current_statement=true&force_add_to_current_statement=false`, example(), token);
    const body = await expectErrorBody(res, 400, 'invalid_query_parameter');
    expect(body.errors[0]?.attr).toBe('force_add_to_current_statement');
  });

  it('a staged-only or unknown account: 404 account_not_found; a supplier not Ongoing: 400', async () => {
    await stageAccount(api.ledger, examplePayload(), operator);
    await expectErrorBody(await api.post(TRANSACTIONS, example(), token), 404, 'account_not_found');
    await expectErrorBody(await api.post(TRANSACTIONS, { ...example(), external_account_number: 'NOPE' }, token), 404, 'account_not_found');
    await importedExampleAccount(api.ledger, { external_account_number: 'LEG-0000002' });
    await setImportSupplierStatus(api.ledger, SUPPLIER, 'Complete', operator);
    await expectErrorBody(await api.post(TRANSACTIONS, { ...example(), external_account_number: 'LEG-0000002' }, token), 400, 'import_supplier_migration_not_ongoing');
  });

  it('order of checks: scope (403), then the request (400), then the account (404)', async () => {
    const otherToken = await accessToken(api, api.otherKey);
    await expectErrorBody(await api.post(`${TRANSACTIONS}?check_previously_added=maybe`, { import_supplier: SUPPLIER }, otherToken), 403, 'permission_denied');
    await expectErrorBody(await api.post(TRANSACTIONS, { ...example(), transactions: [{}] }, token), 400, 'transactions_failed_validation');
    await expectErrorBody(await api.post(TRANSACTIONS, example(), token), 404, 'account_not_found');
  });
});
