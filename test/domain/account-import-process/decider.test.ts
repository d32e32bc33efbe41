import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAccountImportProcessEvent, type AccountImportProcessEvent } from '../../../events/account-import-process.js';
import { validateAccountPayload, type AccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import type { ProcessAccount, StageAccount } from '../../../src/domain/account-import-process/commands.js';
import { accountImportProcessDecider as decider } from '../../../src/domain/account-import-process/decider.js';
import { DomainError } from '../../../src/domain/errors.js';
import { given } from '../../support/given.js';
import { loadExample } from '../../support/ledger.js';

/**
 * Process also appends, after AccountProcessed, the records the staged payload brings (notes,
 * statements, AccountRecordsImported, welcome emails; tested where they are built): the rows
 * below are about the lifecycle events only.
 */
const lifecycle: typeof decider = { ...decider, decide: (command, state) => decider.decide(command, state).filter(isAccountImportProcessEvent) };

const S = 'LEGACY_ENERGIE';
const EXT = 'LEG-0000001';
const NOW = '2026-11-21T10:00:00.000Z';

function payloadOf(name: string): AccountPayload {
  const result = validateAccountPayload(loadExample(name));
  if (!result.ok) throw new Error('example must validate');
  return result.data;
}
const payload = payloadOf('account-domestic.json');
const ref = { importSupplier: S, externalAccountNumber: EXT };

const stage = (overrides: Partial<StageAccount> = {}): StageAccount => ({
  type: 'StageAccount',
  ...ref,
  payload,
  supplierStatus: 'Ongoing',
  now: NOW,
  ...overrides,
});
const processCmd = (overrides: Partial<ProcessAccount> = {}): ProcessAccount => ({
  type: 'ProcessAccount',
  ...ref,
  operationsTeamName: 'Migrations',
  operationsTeamExists: true,
  supplierStatus: 'Ongoing',
  referenceErrors: [],
  platformAccountNumber: 'A-0000ABCD',
  now: NOW,
  ...overrides,
});

const staged: AccountImportProcessEvent = {
  type: 'AccountStaged',
  version: 1,
  data: { ...ref, payload: payload as Record<string, unknown>, stagedAt: NOW },
};
const restaged: AccountImportProcessEvent = { ...staged, type: 'AccountRestaged' } as AccountImportProcessEvent;
const processed: AccountImportProcessEvent = {
  type: 'AccountProcessed',
  version: 1,
  data: { ...ref, platformAccountNumber: 'A-11111111', operationsTeamName: 'Migrations', processedAt: NOW },
};
const skipped: AccountImportProcessEvent = { type: 'AccountMarkedToSkip', version: 1, data: { ...ref, markedAt: NOW } };
const transfer = (from: 'PENDING' | 'IN_PROGRESS' | 'REJECTED', to: 'IN_PROGRESS' | 'REJECTED' | 'COMPLETED'): AccountImportProcessEvent => ({
  type: 'AccountTransferStatusChanged',
  version: 1,
  data: { ...ref, from, to, changedAt: NOW },
});

describe('account import process decider: spec 3.2, row by row', () => {
  it('none + stage (payload valid, supplier Ongoing) -> staged (AccountStaged, 201)', () => {
    given(decider).when(stage()).then([staged]);
  });

  it('staged + stage again (not imported or skipped) -> staged, data replaced (AccountRestaged, 200)', () => {
    given(decider, [staged]).when(stage()).then([restaged]);
    given(decider, [staged, restaged]).when(stage()).then([restaged]);
  });

  it('staged + process (team exists, payload valid, not a dry run) -> imported (AccountProcessed)', () => {
    given(lifecycle, [staged])
      .when(processCmd({ platformAccountNumber: 'A-11111111' }))
      .then([processed]);
  });

  it('staged + process with dry run: the decider decides exactly as for a real run (the store rolls it back)', () => {
    given(lifecycle, [staged, restaged]).when(processCmd({ platformAccountNumber: 'A-11111111' })).then([processed]);
  });

  it('imported + stage -> unchanged, 400 account_import_process_already_imported carrying both account numbers', () => {
    given(decider, [staged, processed])
      .when(stage())
      .thenFails('account_import_process_already_imported', { external_account_number: EXT, platform_account_number: 'A-11111111' });
  });

  it('any + stage when the account is marked to be skipped -> 400 account_marked_to_skip', () => {
    given(decider, [staged, skipped]).when(stage()).thenFails('account_marked_to_skip');
  });

  it('any + stage when the supplier is Paused or Complete -> 400 import_supplier_migration_not_ongoing', () => {
    given(decider).when(stage({ supplierStatus: 'Paused' })).thenFails('import_supplier_migration_not_ongoing');
    given(decider, [staged]).when(stage({ supplierStatus: 'Complete' })).thenFails('import_supplier_migration_not_ongoing');
  });
});

describe('account import process decider: process', () => {
  it('without staged data -> import_process_does_not_exist', () => {
    given(decider).when(processCmd()).thenFails('import_process_does_not_exist');
  });

  it('an already imported account -> account_import_process_already_imported with both numbers', () => {
    given(decider, [staged, processed])
      .when(processCmd())
      .thenFails('account_import_process_already_imported', { external_account_number: EXT, platform_account_number: 'A-11111111' });
  });

  it('a skipped account -> account_marked_to_skip', () => {
    given(decider, [staged, skipped]).when(processCmd()).thenFails('account_marked_to_skip');
  });

  it('a supplier not Ongoing -> import_supplier_migration_not_ongoing', () => {
    given(decider, [staged]).when(processCmd({ supplierStatus: 'Paused' })).thenFails('import_supplier_migration_not_ongoing');
  });

  it('no team named and no supplier default -> operations_team_should_be_provided at attr operations_team_name', () => {
    const error = given(decider, [staged]).when(processCmd({ operationsTeamName: null, operationsTeamExists: false })).thenFails('operations_team_should_be_provided');
    if (error.errors[0]?.attr !== 'operations_team_name') throw new Error('attr must be operations_team_name');
  });

  it('an unknown operations team -> operations_team_name_does_not_exist at attr operations_team_name', () => {
    const error = given(decider, [staged]).when(processCmd({ operationsTeamExists: false })).thenFails('operations_team_name_does_not_exist');
    if (error.errors[0]?.attr !== 'operations_team_name') throw new Error('attr must be operations_team_name');
  });

  it('staged data referring to something that does not exist -> account_failed_validation with those errors', () => {
    const missing = { detail: 'No product X.', code: 'product_code_does_not_exist', attr: 'supply_addresses.0.supply_points.0.agreements.0.tariff_code' };
    const error = given(decider, [staged]).when(processCmd({ referenceErrors: [missing] })).thenFails('account_failed_validation');
    if (error.errors[0]?.code !== 'product_code_does_not_exist') throw new Error('expected the reference error');
  });

  it('staged data that no longer validates -> account_failed_validation with the field errors', () => {
    const broken: AccountImportProcessEvent = {
      ...staged,
      data: { ...staged.data, payload: { ...staged.data.payload, customers: [] } },
    } as AccountImportProcessEvent;
    const error = given(decider, [broken]).when(processCmd()).thenFails('account_failed_validation');
    if (!error.errors.some((e) => e.attr === 'customers' && e.code === 'empty')) throw new Error('expected customers empty');
  });

  it('a staged validation carried by the command decides exactly as validating the state would (validated once a request)', () => {
    const outcome = (run: () => unknown) => {
      try {
        return { events: run() };
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return { code: error.code, detail: error.detail, errors: error.errors };
      }
    };
    const payloads: Record<string, unknown>[] = [
      payload as Record<string, unknown>,
      payloadOf('account-business.json') as Record<string, unknown>,
      { ...payload, customers: [] },
      { ...payload, customers: [{ ...(payload.customers[0] as Record<string, unknown>), mobile: '+3361234567', landline: 'x' }] },
      { ...payload, billing_postcode: '7501' },
    ];
    fc.assert(
      fc.property(fc.constantFrom(...payloads), fc.subarray(Object.keys(payload)), fc.boolean(), (base, dropped, sendEmails) => {
        const stored = Object.fromEntries(Object.entries(base).filter(([key]) => !dropped.includes(key)));
        const event = { ...staged, data: { ...staged.data, payload: stored } } as AccountImportProcessEvent;
        const state = decider.evolve(decider.initialState, event);
        const once = outcome(() => decider.decide(processCmd({ sendEmails, stagedValidation: validateAccountPayload(stored) }), state));
        const twice = outcome(() => decider.decide(processCmd({ sendEmails }), state));
        expect(once).toStrictEqual(twice);
      }),
      { numRuns: 200 },
    );
  });
});

describe('account import process decider: operator actions', () => {
  it('skip: staged -> AccountMarkedToSkip; again -> nothing; not staged -> import_process_does_not_exist; imported -> refused', () => {
    given(decider, [staged]).when({ type: 'MarkAccountToSkip', ...ref, now: NOW }).then([skipped]);
    given(decider, [staged, skipped]).when({ type: 'MarkAccountToSkip', ...ref, now: NOW }).then([]);
    given(decider).when({ type: 'MarkAccountToSkip', ...ref, now: NOW }).thenFails('import_process_does_not_exist');
    given(decider, [staged, processed]).when({ type: 'MarkAccountToSkip', ...ref, now: NOW }).thenFails('account_import_process_already_imported');
  });

  it('transfer status moves PENDING -> IN_PROGRESS -> COMPLETED or REJECTED, and REJECTED -> IN_PROGRESS', () => {
    const change = (to: 'IN_PROGRESS' | 'REJECTED' | 'COMPLETED') => ({ type: 'ChangeTransferStatus' as const, ...ref, to, now: NOW });
    given(decider, [staged, processed]).when(change('IN_PROGRESS')).then([transfer('PENDING', 'IN_PROGRESS')]);
    given(decider, [staged, processed, transfer('PENDING', 'IN_PROGRESS')]).when(change('COMPLETED')).then([transfer('IN_PROGRESS', 'COMPLETED')]);
    given(decider, [staged, processed, transfer('PENDING', 'IN_PROGRESS')]).when(change('REJECTED')).then([transfer('IN_PROGRESS', 'REJECTED')]);
    given(decider, [staged, processed, transfer('PENDING', 'IN_PROGRESS'), transfer('IN_PROGRESS', 'REJECTED')])
      .when(change('IN_PROGRESS'))
      .then([transfer('REJECTED', 'IN_PROGRESS')]);
  });

  it('transfer status refuses other moves and accounts that are not imported', () => {
    const change = (to: 'PENDING' | 'IN_PROGRESS' | 'REJECTED' | 'COMPLETED') => ({ type: 'ChangeTransferStatus' as const, ...ref, to, now: NOW });
    given(decider, [staged, processed]).when(change('COMPLETED')).thenFails('invalid_transfer_status_transition');
    given(decider, [staged, processed]).when(change('PENDING')).thenFails('invalid_transfer_status_transition');
    given(decider, [staged, processed, transfer('PENDING', 'IN_PROGRESS'), transfer('IN_PROGRESS', 'COMPLETED')])
      .when(change('IN_PROGRESS'))
      .thenFails('invalid_transfer_status_transition');
    given(decider, [staged]).when(change('IN_PROGRESS')).thenFails('account_not_imported');
    given(decider).when(change('IN_PROGRESS')).thenFails('account_not_imported');
  });
});
