import { describe, expect, it } from 'vitest';
import type { BusinessEvent } from '../../../events/business.js';
import { validateBusinessContractsPayload, type BusinessContractsPayload } from '../../../src/domain/business/business-contracts-payload.js';
import type { AddBusinessContracts } from '../../../src/domain/business/commands.js';
import { businessDecider as decider } from '../../../src/domain/business/decider.js';
import { given } from '../../support/given.js';
import { loadExample } from '../../support/ledger.js';
import { EXAMPLE_CONTRACT, EXAMPLE_PRODUCT, validBusiness } from './business-fixtures.js';

/** business-contracts/create/ (the platform's endpoint): contracts added to an existing business, given/when/then. */

const S = 'LEGACY_ENERGIE';
const EXT = 'BIZ-000123';
const NOW = '2026-11-21T10:00:00.000Z';
const NEW_CONTRACT = 'CTR-2026-000456';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const example = (): any => structuredClone(loadExample('business-contracts.json'));

function payload(input: unknown = example()): BusinessContractsPayload {
  const result = validateBusinessContractsPayload(input);
  if (!result.ok) throw new Error(`payload must validate: ${JSON.stringify(result.errors)}`);
  return result.data;
}

const add = (overrides: Partial<AddBusinessContracts> = {}): AddBusinessContracts => ({
  type: 'AddBusinessContracts',
  importSupplier: S,
  externalBusinessIdentifier: EXT,
  contracts: payload().business_contracts,
  existingProductCodes: [EXAMPLE_PRODUCT],
  takenContractIdentifiers: [],
  now: NOW,
  ...overrides,
});

const { business_contracts: _contracts, ...attributes } = validBusiness().business;
const created: BusinessEvent = {
  type: 'BusinessCreated',
  version: 1,
  data: { importSupplier: S, externalBusinessIdentifier: EXT, business: attributes, createdAt: NOW },
};
const added = (identifier: string, contract: unknown): BusinessEvent => ({
  type: 'BusinessContractAdded',
  version: 1,
  data: { importSupplier: S, externalBusinessIdentifier: EXT, identifier, contract: contract as Record<string, unknown>, addedAt: NOW },
});

describe('business decider: add contracts (business-contracts/create/)', () => {
  it('given a business, when contracts are added: one BusinessContractAdded per contract, in order, with the full contract', () => {
    const contracts = payload().business_contracts;
    given(decider, [created]).when(add()).then([added(NEW_CONTRACT, contracts[0])]);
  });

  it('given no business: 404 business_not_found, nothing added', () => {
    given(decider).when(add()).thenFails('business_not_found');
  });

  it('an identifier already held in the supplier (this business\'s own included): contract_with_identifier_exists', () => {
    const error = given(decider, [created]).when(add({ takenContractIdentifiers: [NEW_CONTRACT] })).thenFails('business_failed_validation');
    expect(error.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([{ code: 'contract_with_identifier_exists', attr: 'business_contracts.0.identifier' }]);
  });

  it('a product the contract names that does not exist: product_code_does_not_exist at its path', () => {
    const error = given(decider, [created]).when(add({ existingProductCodes: [] })).thenFails('business_failed_validation');
    expect(error.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([
      { code: 'product_code_does_not_exist', attr: 'business_contracts.0.versions.0.terms.1.schedules.0.items.0.product_code' },
    ]);
  });

  it('the business\'s later state knows the added contracts', () => {
    const contracts = payload().business_contracts;
    const state = [created, added(EXAMPLE_CONTRACT, {}), added(NEW_CONTRACT, contracts[0])].reduce(decider.evolve, decider.initialState);
    expect(state).toMatchObject({ status: 'created', contractIdentifiers: [EXAMPLE_CONTRACT, NEW_CONTRACT] });
  });
});

describe('business-contracts/create/ payload', () => {
  const codes = (input: unknown) => {
    const result = validateBusinessContractsPayload(input);
    return result.ok ? [] : result.errors.map(({ code, attr }) => ({ code, attr }));
  };

  it('the example validates', () => {
    expect(codes(example())).toEqual([]);
  });

  it('needs at least one contract, each identifier once, and the contract rules of business/', () => {
    expect(codes({ ...example(), business_contracts: [] })).toEqual([{ code: 'empty', attr: 'business_contracts' }]);
    const twice = example();
    twice.business_contracts.push(structuredClone(twice.business_contracts[0]));
    expect(codes(twice)).toEqual([{ code: 'duplicate_contract_identifiers', attr: 'business_contracts.1.identifier' }]);
    const early = example();
    early.business_contracts[0].versions[0].applicable_at_date = '2025-12-31';
    expect(codes(early)).toEqual([{ code: 'version_applicable_before_contract_valid_from', attr: 'business_contracts.0.versions.0.applicable_at_date' }]);
    expect(codes({ business_contracts: example().business_contracts })).toEqual([
      { code: 'required', attr: 'import_supplier_code' },
      { code: 'required', attr: 'external_business_identifier' },
    ]);
    expect(codes([])).toEqual([{ code: 'invalid', attr: 'non_field_errors' }]);
  });
});
