import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordDigests, type ComparedRecords } from '../../src/export/account-records-digest.js';
import { compareRecords } from '../../src/migrate/verify-records.js';
import { VerifyReport } from '../../src/migrate/verify-report.js';

const records = fc.record({
  notes: fc.array(fc.record({ body: fc.option(fc.string(), { nil: null }) }), { maxLength: 6 }),
  transactions: fc.array(fc.record({ transaction_id: fc.string({ minLength: 1 }), amount_cents: fc.integer(), type: fc.constantFrom('CHARGE', 'CREDIT', 'PAYMENT') }), { maxLength: 6 }),
  statements: fc.array(
    fc.record({ statement_id: fc.string(), bill_period_from_date: fc.string(), bill_period_to_date: fc.string(), gross_amount_cents: fc.option(fc.integer(), { nil: null }) }),
    { maxLength: 4 },
  ),
  payment_instructions: fc.array(fc.record({ reference: fc.string(), vendor: fc.string(), type: fc.string() }), { maxLength: 3 }),
});

/** The same records in an order fast-check picks: a permutation of each kind. */
const shuffled = (r: ComparedRecords, seed: number): ComparedRecords => {
  const shuffle = <T>(list: readonly T[]): T[] => {
    const copy = [...list];
    let s = seed;
    for (let i = copy.length - 1; i > 0; i--) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const j = s % (i + 1);
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  };
  return { notes: shuffle(r.notes), transactions: shuffle(r.transactions), statements: shuffle(r.statements), payment_instructions: shuffle(r.payment_instructions) };
};

describe('the records digest', () => {
  it('is the same for the same records whatever their order', () => {
    fc.assert(fc.property(records, fc.nat(), (r, seed) => {
        expect(recordDigests(shuffled(r, seed))).toEqual(recordDigests(r));
      }));
  });

  it('differs when a record differs', () => {
    fc.assert(
      fc.property(records, (r) => {
        const changed = { ...r, transactions: [...r.transactions, { transaction_id: 'X', amount_cents: 1, type: 'CHARGE' }] };
        expect(recordDigests(changed).transactions).not.toBe(recordDigests(r).transactions);
      }),
    );
  });

  it('compared in detail, records in another order are all identical', () => {
    fc.assert(
      fc.property(records, fc.nat(), (r, seed) => {
        const report = new VerifyReport(null);
        compareRecords(report, 'A', r, shuffled(r, seed));
        expect(report.differences).toBe(0);
        expect(report.summary().transactions.identical).toBe(r.transactions.length);
      }),
    );
  });
});
