import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BusinessEvent, BusinessPaymentInstructionCreated } from '../../../events/business.js';
import {
  businessPaymentInstructionDecider as decider,
  type CreateBusinessPaymentInstruction,
} from '../../../src/domain/business/payment-instruction.js';
import type { VendorAnswer } from '../../../src/domain/payment-instruction/commands.js';
import { given } from '../../support/given.js';
import { validBusiness } from './business-fixtures.js';

/** business-payment-instruction/create/ (the platform's endpoint), given/when/then, and a property over request sequences. */

const S = 'LEGACY_ENERGIE';
const EXT = 'BIZ-000123';
const NOW = '2026-11-21T10:00:00.000Z';
const details = { reference: 'pm_1', type: 'DIRECT_DEBIT', status: 'active' };

const { business_contracts: _contracts, ...attributes } = validBusiness().business;
const created: BusinessEvent = {
  type: 'BusinessCreated',
  version: 1,
  data: { importSupplier: S, externalBusinessIdentifier: EXT, business: attributes, createdAt: NOW },
};

const create = (overrides: Partial<CreateBusinessPaymentInstruction> = {}): CreateBusinessPaymentInstruction => ({
  type: 'CreateBusinessPaymentInstruction',
  importSupplier: S,
  externalBusinessIdentifier: EXT,
  vendor: 'STRIPE',
  reference: 'pm_1',
  instructionType: 'DIRECT_DEBIT',
  validFrom: '2025-07-01',
  accounts: ['LEG-1'],
  supplierStatus: 'Ongoing',
  importedAccounts: new Map([['LEG-1', 'A-00000001']]),
  vendorAnswer: { kind: 'found', details },
  now: NOW,
  ...overrides,
});

const recorded = (reference = 'pm_1'): BusinessPaymentInstructionCreated => ({
  type: 'BusinessPaymentInstructionCreated',
  version: 1,
  data: {
    importSupplier: S,
    externalBusinessIdentifier: EXT,
    vendor: 'STRIPE',
    reference,
    type: 'DIRECT_DEBIT',
    validFrom: '2025-07-01',
    accounts: [{ externalAccountNumber: 'LEG-1', platformAccountNumber: 'A-00000001' }],
    vendorDetails: reference === 'pm_1' ? details : { ...details, reference },
    createdAt: NOW,
  },
});

const extra = (errorDetail: string) => ({ error_detail: errorDetail, external_business_identifier: EXT, import_supplier_code: S, reference: 'pm_1' });

describe('business payment instruction decider', () => {
  it('given a business, when the vendor found the instruction: BusinessPaymentInstructionCreated with the accounts and the vendor\'s answer', () => {
    given(decider, [created]).when(create()).then([recorded()]);
  });

  it('without accounts: recorded for the business alone', () => {
    given(decider, [created]).when(create({ accounts: [], importedAccounts: new Map() })).then([{ ...recorded(), data: { ...recorded().data, accounts: [] } }]);
  });

  it('given no business (or an unknown supplier): 404 business_not_found, with the platform\'s error fields', () => {
    const error = given(decider).when(create()).thenFails('business_not_found');
    expect(error.extra).toMatchObject({ external_business_identifier: EXT, import_supplier_code: S, reference: 'pm_1' });
    given(decider, [created]).when(create({ supplierStatus: null })).thenFails('business_not_found');
  });

  it.each(['Paused', 'Complete'] as const)('a supplier %s: import_supplier_migration_not_ongoing', (status) => {
    given(decider, [created]).when(create({ supplierStatus: status })).thenFails('import_supplier_migration_not_ongoing', extra(`The migration for import supplier ${S} is ${status}, not Ongoing.`));
  });

  it('an account that is not an imported account of the supplier: account_not_found at its index', () => {
    const error = given(decider, [created])
      .when(create({ accounts: ['LEG-1', 'LEG-9'], importedAccounts: new Map([['LEG-1', 'A-00000001']]) }))
      .thenFails('account_not_found');
    expect(error.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([{ code: 'account_not_found', attr: 'accounts.1.external_account_number' }]);
  });

  it('a reference already recorded on the business: nothing appended, whatever the vendor says now', () => {
    given(decider, [created, recorded()]).when(create({ vendorAnswer: { kind: 'unavailable', reason: 'down' } })).then([]);
  });

  it.each<[VendorAnswer, string]>([
    [{ kind: 'not-configured' }, 'invalid_vendor'],
    [{ kind: 'rejected', status: 404, message: 'No such mandate' }, 'payment_instruction_rejected'],
    [{ kind: 'unavailable', reason: 'Vendor timed out' }, 'payment_vendor_unavailable'],
  ])('the vendor answers %o: %s, nothing appended', (vendorAnswer, code) => {
    const error = given(decider, [created]).when(create({ vendorAnswer })).thenFails(code);
    expect(Object.keys(error.extra).sort()).toEqual(['error_detail', 'external_business_identifier', 'import_supplier_code', 'reference']);
    if (code === 'invalid_vendor') expect(error.errors[0]?.attr).toBe('vendor');
  });

  it('property: over any sequence of requests, a reference is recorded at most once, exactly those a vendor confirmed', () => {
    const answers: VendorAnswer[] = [{ kind: 'found', details }, { kind: 'rejected', status: 404, message: 'no' }, { kind: 'unavailable', reason: 'down' }, { kind: 'not-configured' }];
    fc.assert(
      fc.property(fc.array(fc.record({ reference: fc.constantFrom('pm_1', 'pm_2', 'pm_3'), answer: fc.constantFrom(...answers) }), { maxLength: 20 }), (requests) => {
        let history: BusinessEvent[] = [created];
        const confirmed = new Set<string>();
        for (const { reference, answer } of requests) {
          const state = history.reduce(decider.evolve, decider.initialState);
          try {
            const events = decider.decide(create({ reference, vendorAnswer: answer.kind === 'found' ? { kind: 'found', details: { ...details, reference } } : answer }), state);
            history = [...history, ...events];
            if (answer.kind === 'found') confirmed.add(reference);
          } catch {
            // A refusal appends nothing.
          }
        }
        const references = history.flatMap((event) => (event.type === 'BusinessPaymentInstructionCreated' ? [event.data.reference] : []));
        expect(new Set(references).size).toBe(references.length);
        expect(new Set(references)).toEqual(confirmed);
      }),
    );
  });
});
