import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountRecordsImported, majorToCents } from '../../../src/domain/staged-account-records/records-imported.js';
import { validateAccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import { loadExample } from '../../support/ledger.js';

const account = { importSupplier: 'LEGACY_ENERGIE', externalAccountNumber: 'LEG-0000001', platformAccountNumber: 'A-1234ABCD', now: '2026-11-21T10:00:00.000Z' };

function payload(overrides: Record<string, unknown> = {}) {
  const validated = validateAccountPayload({ ...loadExample('account-domestic.json'), ...overrides });
  if (!validated.ok) throw new Error(`example must validate: ${JSON.stringify(validated.errors)}`);
  return validated.data;
}

describe('the staged payload records at process time', () => {
  it('account-domestic.json: schedules, instructions, agreements, consents, campaigns, metadata and ledgers, money in cents', () => {
    expect(accountRecordsImported(account, payload())).toEqual([
      {
        type: 'AccountRecordsImported',
        version: 1,
        data: {
          importSupplier: 'LEGACY_ENERGIE',
          externalAccountNumber: 'LEG-0000001',
          platformAccountNumber: 'A-1234ABCD',
          supplyPoints: [
            {
              identifier: '09111642617347',
              supplyType: 'ELECTRICITY',
              paymentSchedules: [{ amountCents: 6450, dayOfMonth: 5, frequency: 'MONTHLY', means: 'DD', startDate: '2025-07-05' }],
              paymentInstructions: [{ vendor: 'GOCARDLESS', reference: 'MD000123ABC', type: 'DIRECT_DEBIT', validFrom: '2025-07-01' }],
              agreements: [
                { tariffCode: 'ELEC-FIXE-2025', agreedAt: '2024-12-20T10:15:00+01:00', effectiveFrom: '2025-07-01', effectiveTo: '2026-06-30', addonBands: [] },
              ],
              consents: { ELEC_CURVES: true, ELEC_INDEXES: true },
            },
            {
              identifier: '21461231498752',
              supplyType: 'GAS',
              paymentSchedules: [],
              paymentInstructions: [],
              agreements: [{ tariffCode: 'GAZ-FIXE-2025', agreedAt: '2024-12-20T10:15:00+01:00', effectiveFrom: '2025-07-01', effectiveTo: null, addonBands: [] }],
              consents: { GAS_INDEXES: true },
            },
          ],
          campaigns: [{ slug: 'winter-2025', campaignNote: 'Joined the winter loyalty campaign' }],
          metadata: [{ key: 'legacy_crm', value: { segment: 'GOLD', since: '2019-09-01' } }],
          supplementaryLedgers: [
            {
              ledgerCode: 'ENERGY_CHEQUE_LEDGER',
              energyCheques: [
                {
                  number: 'CHQ-778812',
                  protectionFrom: '2025-04-01',
                  protectionTo: '2026-03-31',
                  source: 'PAPERLESS',
                  aspRemittanceRef: 'ASP-2025-118',
                  amountCents: 15_000,
                  validTo: '2026-03-31',
                  status: 'VALID',
                },
              ],
            },
          ],
          importedAt: account.now,
        },
      },
    ]);
  });

  it('nothing to record: no event', () => {
    const raw = loadExample('account-domestic.json');
    const addresses = (raw['supply_addresses'] as Record<string, unknown>[]).map((address) => ({
      ...address,
      supply_points: (address['supply_points'] as Record<string, unknown>[]).map(
        ({ payment_schedules: _s, payment_instructions: _i, agreements: _a, consent_data: _c, ...point }) => point,
      ),
    }));
    const bare = payload({ supply_addresses: addresses, account_campaigns: [], metadata: [], supplementary_ledgers: [], payment_preferences: [] });
    expect(accountRecordsImported(account, bare)).toEqual([]);
  });

  it('majorToCents reads the decimal text: 64.5 is 6450, 0.1 is 10, 19.99 is 1999 (no float rounding)', () => {
    expect([64.5, 0.1, 19.99, 0, 1234567.89].map(majorToCents)).toEqual([6450, 10, 1999, 0, 123456789]);
    fc.assert(fc.property(fc.integer({ min: 0, max: 10_000_000_000 }), (cents) => majorToCents(cents / 100) === cents));
  });
});
