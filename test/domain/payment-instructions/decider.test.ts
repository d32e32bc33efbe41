import { describe, expect, it } from 'vitest';
import type { AccountProcessed, AccountStaged } from '../../../events/account-import-process.js';
import type { PaymentInstructionCreated } from '../../../events/payment-instruction.js';
import type { LedgerEvent } from '../../../events/registry.js';
import type { CreatePaymentInstruction, VendorAnswer } from '../../../src/domain/payment-instruction/commands.js';
import { checkPaymentInstruction, paymentInstructionDecider as decider } from '../../../src/domain/payment-instruction/decider.js';
import { fold } from '../../../src/domain/decider.js';
import { given } from '../../support/given.js';

const S = 'LEGACY_ENERGIE';
const EXT = 'LEG-0000001';
const NOW = '2026-11-21T10:00:00.000Z';
const PLATFORM = 'A-1234ABCD';
const ref = { importSupplier: S, externalAccountNumber: EXT };
const details = { reference: 'pm_1', type: 'CARD', status: 'active', card: { last4: '4242' } };

const staged: AccountStaged = { type: 'AccountStaged', version: 1, data: { ...ref, payload: {}, stagedAt: NOW } };
const processed: AccountProcessed = {
  type: 'AccountProcessed',
  version: 1,
  data: { ...ref, platformAccountNumber: PLATFORM, operationsTeamName: 'Migrations', processedAt: NOW },
};
const noteOnTheStream = {
  type: 'AccountNoteCreated',
  version: 1,
  data: { ...ref, sequence: 1, body: 'b', createdAt: NOW, createdAtGiven: false, isPinned: false, unpinAt: null, documentPaths: [], source: 'import_request' },
} as LedgerEvent;

const create = (overrides: Partial<CreatePaymentInstruction> = {}): CreatePaymentInstruction => ({
  type: 'CreatePaymentInstruction',
  ...ref,
  vendor: 'STRIPE',
  reference: 'pm_1',
  instructionType: 'CARD',
  supplierStatus: 'Ongoing',
  vendorAnswer: { kind: 'found', details },
  now: NOW,
  ...overrides,
});

const created = (reference = 'pm_1', vendorDetails: Record<string, unknown> = details): PaymentInstructionCreated => ({
  type: 'PaymentInstructionCreated',
  version: 1,
  data: { ...ref, platformAccountNumber: PLATFORM, vendor: 'STRIPE', reference, type: 'CARD', vendorDetails, createdAt: NOW },
});

const vendorExtra = (errorDetail: string) => ({
  error_detail: errorDetail,
  external_account_number: EXT,
  import_supplier: S,
  reference: 'pm_1',
});

describe('payment instructions: the account must be imported', () => {
  it('given no account, when created: 404 account_not_found', () => {
    given(decider).when(create()).thenFails('account_not_found');
  });

  it('given a staged-only account: 404 account_not_found', () => {
    given(decider, [staged]).when(create()).thenFails('account_not_found');
  });

  it('given an imported account of a supplier that is not Ongoing: 400 import_supplier_migration_not_ongoing', () => {
    given(decider, [staged, processed]).when(create({ supplierStatus: 'Paused' })).thenFails('import_supplier_migration_not_ongoing');
    given(decider, [staged, processed]).when(create({ supplierStatus: 'Complete' })).thenFails('import_supplier_migration_not_ongoing');
  });
});

describe('payment instructions: the vendor decides whether the reference exists', () => {
  it('given an imported account, when the vendor found it: PaymentInstructionCreated with the vendor details as given', () => {
    given(decider, [staged, processed]).when(create()).then([created()]);
  });

  it('the other events of the account stream are ignored', () => {
    given(decider, [staged, noteOnTheStream, processed, noteOnTheStream]).when(create()).then([created()]);
  });

  it('vendor not configured: 400 invalid_vendor at attr vendor, with the four platform fields', () => {
    const error = given(decider, [staged, processed])
      .when(create({ vendorAnswer: { kind: 'not-configured' } }))
      .thenFails('invalid_vendor', vendorExtra('Payment vendor STRIPE is not configured.'));
    expect(error.errors).toEqual([{ code: 'invalid_vendor', detail: error.detail, attr: 'vendor' }]);
  });

  it('vendor rejects (4xx): 400 payment_instruction_rejected, error_detail is the vendor message', () => {
    given(decider, [staged, processed])
      .when(create({ vendorAnswer: { kind: 'rejected', status: 404, message: 'No such mandate' } }))
      .thenFails('payment_instruction_rejected', vendorExtra('No such mandate'));
  });

  it('vendor unavailable: payment_vendor_unavailable (nothing is appended)', () => {
    given(decider, [staged, processed])
      .when(create({ vendorAnswer: { kind: 'unavailable', reason: 'timed out' } }))
      .thenFails('payment_vendor_unavailable', vendorExtra('timed out'));
  });
});

describe('payment instructions: idempotent per reference', () => {
  it('given the reference already recorded: nothing new, whatever the vendor says now', () => {
    const answers: VendorAnswer[] = [
      { kind: 'found', details },
      { kind: 'unavailable', reason: 'down' },
      { kind: 'rejected', status: 404, message: 'gone' },
      { kind: 'not-configured' },
    ];
    for (const vendorAnswer of answers) {
      given(decider, [staged, processed, created()]).when(create({ vendorAnswer })).then([]);
    }
  });

  it('another reference on the same account is recorded', () => {
    given(decider, [staged, processed, created()])
      .when(create({ reference: 'pm_2', vendorAnswer: { kind: 'found', details: { ...details, reference: 'pm_2' } } }))
      .then([created('pm_2', { ...details, reference: 'pm_2' })]);
  });

  it('the pre-check the application runs before calling the vendor says so too', () => {
    const state = fold(decider, [staged, processed, created()]);
    expect(checkPaymentInstruction(create(), 'Ongoing', state)).toEqual({ kind: 'already-recorded', platformAccountNumber: PLATFORM });
    expect(checkPaymentInstruction(create({ reference: 'pm_2' }), 'Ongoing', state)).toEqual({ kind: 'new' });
  });
});
