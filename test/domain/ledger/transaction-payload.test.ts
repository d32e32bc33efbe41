import { describe, expect, it } from 'vitest';
import { validateImportTransactionsRequest } from '../../../src/domain/ledger/transaction-payload.js';
import { loadExample } from '../../support/ledger.js';

type Json = any;
const example = (): Json => structuredClone(loadExample('transactions.json'));
const problems = (input: unknown) => {
  const result = validateImportTransactionsRequest(input);
  return result.ok ? [] : result.errors.map((e) => [e.code, e.attr]);
};
const withFirst = (change: Record<string, unknown>): Json => {
  const payload = example();
  payload.transactions[0] = { ...payload.transactions[0], ...change };
  return payload;
};

describe('transactions/create/ request (spec 2.6, 4.10)', () => {
  it('the example validates; amounts become cents, other decimals their decimal text', () => {
    const result = validateImportTransactionsRequest(example());
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.data.transactions.map((tx) => tx.amount)).toEqual([3520, 1000, 6450, 500, 2618]);
    const supply = result.data.transactions[4];
    if (supply?.type !== 'SUPPLY_CHARGE') throw new Error('expected a supply charge');
    expect(supply.line_items[0]).toEqual({
      rate_band: 'BASE',
      start_date: '2025-07-01',
      end_date: '2025-07-31',
      number_of_units: '110',
      net_amount: 2182,
      price_per_unit: '0.1984',
      units: ['110'],
    });
    expect(supply.tax_items).toEqual([{ amount: 436, tax_type: 'VAT', value_taxed: '21.82', rate: '0.2', unit_type: 'PROPORTION' }]);
  });

  it.each([
    ['CHARGE and CREDIT may be negative (a reversal)', { amount: -35.2 }, []],
    ['CHARGE needs a reason', { reason: undefined }, [['required', 'transactions.0.reason']]],
    ['CHARGE reason may not be blank', { reason: '' }, [['blank', 'transactions.0.reason']]],
    ['transaction_id is required', { transaction_id: undefined }, [['required', 'transactions.0.transaction_id']]],
    ['type is required', { type: undefined }, [['required', 'transactions.0.type']]],
    ['amount null', { amount: null }, [['null', 'transactions.0.amount']]],
  ])('%s', (_name, change, expected) => {
    expect(problems(withFirst(change))).toEqual(expected);
  });

  it('PAYMENT and REPAYMENT: positive; payment_type and reason optional', () => {
    const payload = example();
    delete payload.transactions[2].reason;
    delete payload.transactions[2].payment_type;
    payload.transactions[3].amount = -5;
    expect(problems(payload)).toEqual([['negative_transaction_amount', 'transactions.3.amount']]);
  });

  it('CREDIT needs a reason', () => {
    const payload = example();
    delete payload.transactions[1].reason;
    expect(problems(payload)).toEqual([['required', 'transactions.1.reason']]);
  });

  it('SUPPLY_CHARGE: product_code, at least one line item, line dates in order, the total to the cent', () => {
    const payload = example();
    const supply = payload.transactions[4];
    delete supply.product_code;
    supply.line_items[0].start_date = '2025-08-01';
    supply.tax_items[0].amount = 4.37;
    expect(problems(payload)).toEqual([
      ['required', 'transactions.4.product_code'],
      ['start_date_later_than_end_date', 'transactions.4.line_items.0.end_date'],
    ]);
    const mismatch = example();
    mismatch.transactions[4].tax_items[0].amount = 4.37;
    expect(problems(mismatch)).toEqual([
      ['ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount', 'transactions.4.amount'],
    ]);
    const empty = example();
    empty.transactions[4].line_items = [];
    expect(problems(empty)).toEqual([['empty', 'transactions.4.line_items']]);
  });

  it('tax and line-item amounts: at most 2 decimals; units and prices bounded like the platform\'s decimals', () => {
    const payload = example();
    payload.transactions[4].line_items[0].net_amount = 21.825;
    payload.transactions[4].line_items[0].price_per_unit = 0.12345678;
    payload.transactions[4].tax_items[0].unit_type = 'PER_MONTH';
    expect(problems(payload)).toEqual([
      ['max_decimal_places', 'transactions.4.line_items.0.net_amount'],
      ['max_decimal_places', 'transactions.4.line_items.0.price_per_unit'],
      ['invalid_choice', 'transactions.4.tax_items.0.unit_type'],
    ]);
  });

  it('duplicate ids inside the request are reported with the other problems', () => {
    const payload = example();
    payload.transactions[2].transaction_id = 'TX-0001';
    payload.transactions[4].transaction_id = 'TX-0001';
    payload.transactions[1].amount = 'ten';
    expect(problems(payload)).toEqual([
      ['invalid', 'transactions.1.amount'],
      ['duplicate_transaction_ids', 'transactions.2.transaction_id'],
      ['duplicate_transaction_ids', 'transactions.4.transaction_id'],
    ]);
  });

  it('the envelope: supplier, account, a non-empty list', () => {
    expect(problems({ transactions: [] })).toEqual([
      ['required', 'import_supplier'],
      ['required', 'external_account_number'],
      ['empty', 'transactions'],
    ]);
  });
});
