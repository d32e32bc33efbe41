import { describe, expect, it } from 'vitest';
import { isAccountImportProcessEvent, type AccountImportProcessEvent } from '../../../events/account-import-process.js';
import { parseLedgerEvent } from '../../../events/registry.js';
import { accountImportProcessesProjection } from '../../../projections/account-import-processes.js';
import { validateAccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import type { ProcessAccount } from '../../../src/domain/account-import-process/commands.js';
import { accountImportProcessDecider as decider } from '../../../src/domain/account-import-process/decider.js';
import { given } from '../../support/given.js';
import { loadExample } from '../../support/ledger.js';

/**
 * Process also appends, after AccountProcessed, the records the staged payload brings (notes,
 * statements, AccountRecordsImported, welcome emails; tested where they are built): the rows
 * below are about the lifecycle events only.
 */
const lifecycle: typeof decider = { ...decider, decide: (command, state) => decider.decide(command, state).filter(isAccountImportProcessEvent) };

/** The account side of spec 1.5: process records the business contract the account is linked to. */

const S = 'LEGACY_ENERGIE';
const EXT = 'LEG-B-0000042';
const NOW = '2026-11-21T10:00:00.000Z';
const ref = { importSupplier: S, externalAccountNumber: EXT };

const validated = validateAccountPayload(loadExample('account-business.json'));
if (!validated.ok) throw new Error('example must validate');
const staged: AccountImportProcessEvent = {
  type: 'AccountStaged',
  version: 1,
  data: { ...ref, payload: validated.data as Record<string, unknown>, stagedAt: NOW },
};
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
const processedData = { ...ref, platformAccountNumber: 'A-0000ABCD', operationsTeamName: 'Migrations', processedAt: NOW };

describe('process links the account to its business contract', () => {
  it('given staged, when processed with the contract found: AccountProcessed records the link', () => {
    given(lifecycle, [staged])
      .when(processCmd({ businessContract: { identifier: 'CTR-2025-000123', platformBusinessId: 7 } }))
      .then([
        {
          type: 'AccountProcessed',
          version: 1,
          data: { ...processedData, businessContractIdentifier: 'CTR-2025-000123', platformBusinessId: 7 },
        },
      ]);
  });

  it('given staged, when processed without a contract: no link fields at all', () => {
    given(lifecycle, [staged]).when(processCmd({ businessContract: null })).then([{ type: 'AccountProcessed', version: 1, data: processedData }]);
    given(lifecycle, [staged]).when(processCmd()).then([{ type: 'AccountProcessed', version: 1, data: processedData }]);
  });

  it('given staged, when the named contract was not found: account_failed_validation, nothing processed', () => {
    const missing = { detail: 'x', code: 'business_contract_not_found', attr: 'business.business_contract_identifier' };
    const error = given(decider, [staged]).when(processCmd({ referenceErrors: [missing] })).thenFails('account_failed_validation');
    expect(error.errors).toEqual([missing]);
  });
});

describe('AccountProcessed stored before the link existed', () => {
  const stored = (event: AccountImportProcessEvent) => ({
    globalPosition: 9,
    streamId: 'account-import-process:LEGACY_ENERGIE:LEG-B-0000042',
    streamPosition: 2,
    event,
    metadata: { eventId: 'e', actor: 'a', requestId: null, correlationId: null, causationId: null },
    recordedAt: NOW,
  });

  it('still parses, with no link', () => {
    const event = parseLedgerEvent('AccountProcessed', 1, processedData);
    expect(event).toEqual({ type: 'AccountProcessed', version: 1, data: processedData });
  });

  it('projects to null link columns; a linked one to its contract and business id', () => {
    const processed = (data: unknown) => stored(parseLedgerEvent('AccountProcessed', 1, data) as AccountImportProcessEvent);
    const row = accountImportProcessesProjection.evolve(null, stored(staged));
    expect(accountImportProcessesProjection.evolve(row, processed(processedData))).toMatchObject({
      state: 'IMPORTED',
      businessContractIdentifier: null,
      platformBusinessId: null,
    });
    expect(
      accountImportProcessesProjection.evolve(row, processed({ ...processedData, businessContractIdentifier: 'C', platformBusinessId: 7 })),
    ).toMatchObject({ businessContractIdentifier: 'C', platformBusinessId: 7 });
  });

  it('a link with a non-integer business id is not a valid stored event', () => {
    expect(() => parseLedgerEvent('AccountProcessed', 1, { ...processedData, businessContractIdentifier: 'C', platformBusinessId: 1.5 })).toThrow();
  });
});
