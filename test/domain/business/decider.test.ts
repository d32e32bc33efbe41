import { describe, expect, it } from 'vitest';
import type { BusinessEvent } from '../../../events/business.js';
import type { CreateBusiness } from '../../../src/domain/business/commands.js';
import { businessDecider as decider } from '../../../src/domain/business/decider.js';
import { given } from '../../support/given.js';
import { EXAMPLE_CONTRACT, EXAMPLE_PRODUCT, businessExample, validBusiness } from './business-fixtures.js';

const S = 'LEGACY_ENERGIE';
const EXT = 'BIZ-000123';
const NOW = '2026-11-21T10:00:00.000Z';
const CONTRACT_ATTR = 'business.business_contracts.0.identifier';
const OVERRIDE_ATTR = 'business.business_contracts.0.versions.0.terms.1.schedules.0.items.0.product_code';
const ELIGIBILITY_ATTR = 'business.business_contracts.0.versions.0.terms.4.schedules.0.product_code';

const create = (overrides: Partial<CreateBusiness> = {}): CreateBusiness => ({
  type: 'CreateBusiness',
  payload: validBusiness(),
  existingProductCodes: [EXAMPLE_PRODUCT],
  takenContractIdentifiers: [],
  now: NOW,
  ...overrides,
});

const example = validBusiness();
const { business_contracts: contracts, ...attributes } = example.business;

const created: BusinessEvent = {
  type: 'BusinessCreated',
  version: 1,
  data: { importSupplier: S, externalBusinessIdentifier: EXT, business: attributes, createdAt: NOW },
};
const contractAdded: BusinessEvent = {
  type: 'BusinessContractAdded',
  version: 1,
  data: {
    importSupplier: S,
    externalBusinessIdentifier: EXT,
    identifier: EXAMPLE_CONTRACT,
    contract: contracts[0] as unknown as Record<string, unknown>,
    addedAt: NOW,
  },
};

describe('business decider: create (spec 4.4)', () => {
  it('a new business: BusinessCreated with its attributes, then one BusinessContractAdded per contract', () => {
    given(decider).when(create()).then([created, contractAdded]);
  });

  it('contracts are added in payload order, with the full contract', () => {
    const input = businessExample();
    const second = { ...structuredClone(input.business.business_contracts[0]), identifier: 'CTR-2' };
    input.business.business_contracts.push(second);
    const events = decider.decide(create({ payload: validBusiness(input) }), decider.initialState);
    expect(events.map((e) => e.type)).toEqual(['BusinessCreated', 'BusinessContractAdded', 'BusinessContractAdded']);
    expect(events[2]).toMatchObject({ data: { identifier: 'CTR-2', contract: second } });
  });

  it('a business without contracts is only BusinessCreated', () => {
    const input = businessExample();
    input.business.business_contracts = [];
    given(decider).when(create({ payload: validBusiness(input), existingProductCodes: [] })).then([created]);
  });

  it('every product code named by a rate override or eligibility term must exist', () => {
    const error = given(decider).when(create({ existingProductCodes: [] })).thenFails('business_failed_validation');
    expect(error.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([
      { code: 'product_code_does_not_exist', attr: OVERRIDE_ATTR },
      { code: 'product_code_does_not_exist', attr: ELIGIBILITY_ATTR },
    ]);
  });

  it('a contract identifier already held by a business of the supplier is refused', () => {
    const error = given(decider)
      .when(create({ takenContractIdentifiers: [EXAMPLE_CONTRACT], existingProductCodes: [] }))
      .thenFails('business_failed_validation');
    expect(error.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([
      { code: 'contract_with_identifier_exists', attr: CONTRACT_ATTR },
      { code: 'product_code_does_not_exist', attr: OVERRIDE_ATTR },
      { code: 'product_code_does_not_exist', attr: ELIGIBILITY_ATTR },
    ]);
  });
});

describe('business decider: uniqueness (spec 2.4)', () => {
  it('the same business again (same name, SIRET and type): nothing appended', () => {
    given(decider, [created, contractAdded]).when(create()).then([]);
  });

  it('the same business again is answered even though its own contract identifiers are now taken', () => {
    given(decider, [created, contractAdded])
      .when(create({ takenContractIdentifiers: [EXAMPLE_CONTRACT], existingProductCodes: [] }))
      .then([]);
  });

  it('the same business again with other details or contracts: still the same business', () => {
    const input = businessExample();
    input.business.details = [];
    input.business.business_contracts[0].identifier = 'CTR-NEW';
    given(decider, [created, contractAdded]).when(create({ payload: validBusiness(input) })).then([]);
  });

  it.each([
    ['company_name', 'Boulangerie Martin SARL'],
    ['siret', '73282932000074'],
    ['business_type', 'SARL'],
  ])('a different %s: business_already_exists, naming the attribute', (attribute, value) => {
    const input = businessExample();
    input.business[attribute] = value;
    const error = given(decider, [created, contractAdded]).when(create({ payload: validBusiness(input) })).thenFails('business_already_exists');
    expect(error.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([{ code: 'business_already_exists', attr: `business.${attribute}` }]);
  });

  it('every differing key attribute is reported', () => {
    const input = businessExample();
    input.business.company_name = 'Autre';
    input.business.business_type = 'SAS';
    const error = given(decider, [created]).when(create({ payload: validBusiness(input) })).thenFails('business_already_exists');
    expect(error.errors.map((e) => e.attr)).toEqual(['business.company_name', 'business.business_type']);
  });
});

describe('business state', () => {
  it('folds the contracts of the business', () => {
    const state = [created, contractAdded].reduce(decider.evolve, decider.initialState);
    expect(state).toEqual({
      status: 'created',
      key: { business_type: 'EURL', company_name: 'Boulangerie Martin EURL', siret: '44306184100047' },
      contractIdentifiers: [EXAMPLE_CONTRACT],
    });
  });
});
