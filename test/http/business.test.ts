import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { businessStreamId } from '../../events/business.js';
import { inlineProjections } from '../../projections/index.js';
import { validateAccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { createBusinessWithContract, minimalBusiness } from '../support/business.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { stageBeforeReferenceRules } from '../support/account-records.js';
import { OTHER_SUPPLIER, SUPPLIER, TEAM, createTestApi, loadExample, type TestApi } from '../support/ledger.js';

/**
 * Spec 4.4 (create business, with the rules of 2.3 and 2.4) and the account
 * side of spec 1.5 (an account's business_contract_identifier names a contract
 * of its supplier; process links the account to it), through the real app.
 */

const PRODUCTS = '/v1/data-import/products/';
const BUSINESS = '/v1/data-import/business/';
const VALIDATE = '/v1/data-import/validate-account/';
const STAGE = '/v1/data-import/account-import-process/create-or-update/';
const PROCESS = '/v1/data-import/account-import-process/process/';

const EXT = 'BIZ-000123';
const CONTRACT = 'CTR-2025-000123';
const ACCOUNT_EXT = 'LEG-B-0000042';
const TERMS = 'business.business_contracts.0.versions.0.terms';

/** Loosely typed on purpose: the tests break payloads in ways the payload types forbid. */
type Payload = any;
const businessExample = (): Payload => structuredClone(loadExample('business.json'));
const accountExample = (): Payload => structuredClone(loadExample('account-business.json'));

let api: TestApi;
let token: string;

/** Spec 1.4: products first, through products/. */
async function createExampleProducts(): Promise<void> {
  const res = await api.post(PRODUCTS, loadExample('products.json'), token);
  expect(res.status).toBe(201);
  expect(await res.json()).toMatchObject({ products: [{ created: true }, { created: true }] });
}

beforeEach(async () => {
  api = await createTestApi({ exampleProducts: false });
  token = await accessToken(api);
  await createExampleProducts();
});

afterEach(async () => {
  await api.close();
});

async function createOk(payload: Payload = businessExample(), as = token): Promise<number> {
  const res = await api.post(BUSINESS, payload, as);
  expect(res.status).toBe(201);
  const body = (await res.json()) as { platform_business_id: number; external_business_identifier: string };
  expect(Object.keys(body).sort()).toEqual(['external_business_identifier', 'platform_business_id']);
  expect(body.external_business_identifier).toBe(payload.external_business_identifier);
  expect(Number.isInteger(body.platform_business_id)).toBe(true);
  return body.platform_business_id;
}

const logSize = async () => (await api.ledger.store.readAll(0, 1_000_000)).length;

async function expectFailure(payload: Payload, code: string, errors: { code: string; attr: string | null }[]) {
  const before = await logSize();
  const body = await expectErrorBody(await api.post(BUSINESS, payload, token), 400, code);
  expect(body.errors.map(({ code: c, attr }) => ({ code: c, attr }))).toEqual(errors);
  expect(await logSize()).toBe(before);
}

describe('POST business/ (spec 4.4)', () => {
  it('creates the example business: 201 with an integer platform_business_id', async () => {
    const id = await createOk();
    const stream = await api.ledger.store.readStream(businessStreamId(SUPPLIER, EXT));
    expect(stream.map((e) => e.event.type)).toEqual(['BusinessCreated', 'BusinessContractAdded']);
    expect(id).toBe(stream[0]?.globalPosition);
    expect(await api.ledger.read.findBusiness(SUPPLIER, EXT)).toMatchObject({
      platformBusinessId: id,
      companyName: 'Boulangerie Martin EURL',
      siret: '44306184100047',
      businessType: 'EURL',
    });
    expect(await api.ledger.read.findBusinessContract(SUPPLIER, CONTRACT)).toEqual({
      contractIdentifier: CONTRACT,
      externalBusinessIdentifier: EXT,
      platformBusinessId: id,
    });
  });

  it('records the full validated payload, without unknown fields', async () => {
    const payload = businessExample();
    payload.business.nickname = 'Martin';
    payload.business.business_contracts[0].legacy = true;
    await createOk(payload);
    const [created, contract] = await api.ledger.store.readStream(businessStreamId(SUPPLIER, EXT));
    const { business_contracts: contracts, ...attributes } = businessExample().business;
    expect(created?.event.data).toMatchObject({ importSupplier: SUPPLIER, externalBusinessIdentifier: EXT, business: attributes });
    expect(contract?.event.data).toMatchObject({ identifier: CONTRACT, contract: contracts[0] });
  });

  it('gives every business its own id', async () => {
    const first = await createOk();
    const second = await createOk(minimalBusiness({ externalBusinessIdentifier: 'BIZ-2', contractIdentifier: 'CTR-2' }));
    const third = await createOk(minimalBusiness({ externalBusinessIdentifier: 'BIZ-3', contractIdentifier: 'CTR-3' }));
    expect(new Set([first, second, third]).size).toBe(3);
  });

  it('ids and rows are identical after a projection rebuild from the log', async () => {
    await createOk();
    await createOk(minimalBusiness({ externalBusinessIdentifier: 'BIZ-2', contractIdentifier: 'CTR-2' }));
    // Rebuilding every projection from the log gives exactly the live rows (businesses and business_contracts among them).
    const { differences } = await api.ledger.projections.verify(inlineProjections);
    expect(differences).toEqual([]);
    for (const table of ['businesses', 'business_contracts']) expect((await api.tableRows(table)).length).toBe(2);
  });

  describe('uniqueness (spec 2.4)', () => {
    it('the same business again: 201 with the same id, nothing appended', async () => {
      const id = await createOk();
      const before = await logSize();
      expect(await createOk()).toBe(id);
      expect(await logSize()).toBe(before);
    });

    it('the same external identifier, name, SIRET and type with other contracts or details is the same business', async () => {
      const id = await createOk();
      const payload = minimalBusiness({ contractIdentifier: 'CTR-OTHER' });
      payload.business.company_name = 'Boulangerie Martin EURL';
      expect(await createOk(payload)).toBe(id);
      expect(await api.ledger.read.findBusinessContract(SUPPLIER, 'CTR-OTHER')).toBeNull();
    });

    it.each([
      ['company_name', 'Boulangerie Martin SARL'],
      ['siret', '73282932000074'],
      ['business_type', 'SARL'],
    ])('a different %s: 400 business_already_exists, nothing appended', async (attribute, value) => {
      await createOk();
      const payload = businessExample();
      payload.business[attribute] = value;
      await expectFailure(payload, 'business_already_exists', [{ code: 'business_already_exists', attr: `business.${attribute}` }]);
    });

    it('the same external identifier in another import supplier is another business', async () => {
      const otherToken = await accessToken(api, api.otherKey);
      const id = await createOk();
      const payload = businessExample();
      payload.import_supplier_code = OTHER_SUPPLIER;
      payload.business.company_name = 'Another company';
      expect(await createOk(payload, otherToken)).not.toBe(id);
    });
  });

  describe('rules: a broken variant each (400 business_failed_validation, nothing written)', () => {
    it('an invalid SIRET', async () => {
      const payload = businessExample();
      payload.business.siret = '44306184100048';
      await expectFailure(payload, 'business_failed_validation', [{ code: 'invalid_siret', attr: 'business.siret' }]);
    });

    it('an unknown term type', async () => {
      const payload = businessExample();
      payload.business.business_contracts[0].versions[0].terms[0].term_type = 'LOYALTY_BONUS';
      await expectFailure(payload, 'business_failed_validation', [{ code: 'invalid_choice', attr: `${TERMS}.0.term_type` }]);
    });

    it('a missing required field', async () => {
      const payload = businessExample();
      delete payload.business.company_name;
      await expectFailure(payload, 'business_failed_validation', [{ code: 'required', attr: 'business.company_name' }]);
    });

    it('a version applicable before the contract is valid', async () => {
      const payload = businessExample();
      payload.business.business_contracts[0].versions[0].applicable_at_date = '2024-12-31';
      await expectFailure(payload, 'business_failed_validation', [
        { code: 'version_applicable_before_contract_valid_from', attr: 'business.business_contracts.0.versions.0.applicable_at_date' },
      ]);
    });

    it('a contract identifier repeated in the payload', async () => {
      const payload = businessExample();
      payload.business.business_contracts.push(structuredClone(payload.business.business_contracts[0]));
      await expectFailure(payload, 'business_failed_validation', [
        { code: 'duplicate_contract_identifiers', attr: 'business.business_contracts.1.identifier' },
      ]);
    });

    it('a contract identifier already held by another business of the supplier', async () => {
      await createBusinessWithContract(api.ledger, { externalBusinessIdentifier: 'BIZ-FIRST', contractIdentifier: CONTRACT });
      await expectFailure(businessExample(), 'business_failed_validation', [
        { code: 'contract_with_identifier_exists', attr: 'business.business_contracts.0.identifier' },
      ]);
    });

    it('a contract identifier held by a business of another supplier is free', async () => {
      await createBusinessWithContract(api.ledger, { supplier: OTHER_SUPPLIER, contractIdentifier: CONTRACT });
      await createOk();
    });

    it('a product that does not exist, in a rate override and in an eligibility schedule', async () => {
      const payload = businessExample();
      payload.business.business_contracts[0].versions[0].terms[1].schedules[0].items[0].product_code = 'ELEC-NOPE';
      payload.business.business_contracts[0].versions[0].terms[4].schedules[0].product_code = 'GAZ-NOPE';
      await expectFailure(payload, 'business_failed_validation', [
        { code: 'product_code_does_not_exist', attr: `${TERMS}.1.schedules.0.items.0.product_code` },
        { code: 'product_code_does_not_exist', attr: `${TERMS}.4.schedules.0.product_code` },
      ]);
    });

    it('every problem of the payload is reported together', async () => {
      const payload = businessExample();
      payload.business.siret = '123';
      payload.external_business_identifier = '';
      payload.business.business_contracts[0].versions[0].terms[3].frequency = '';
      const body = await expectErrorBody(await api.post(BUSINESS, payload, token), 400, 'business_failed_validation');
      expect(body.errors.map((e) => e.attr).sort()).toEqual(['business.business_contracts.0.versions.0.terms.3.frequency', 'business.siret', 'external_business_identifier']);
    });

    it('a body that is not an object', async () => {
      await expectFailure([businessExample()], 'business_failed_validation', [{ code: 'invalid', attr: 'non_field_errors' }]);
    });
  });

  describe('authentication and scoping', () => {
    it('403 permission_denied for a key not scoped to the import supplier, before the payload is validated', async () => {
      const otherToken = await accessToken(api, api.otherKey);
      await expectErrorBody(await api.post(BUSINESS, businessExample(), otherToken), 403, 'permission_denied');
      const broken = businessExample();
      broken.business.siret = 'x';
      await expectErrorBody(await api.post(BUSINESS, broken, otherToken), 403, 'permission_denied');
      expect(await api.ledger.read.findBusiness(SUPPLIER, EXT)).toBeNull();
    });

    it('403 for an import supplier that does not exist', async () => {
      const payload = businessExample();
      payload.import_supplier_code = 'NO_SUCH_SUPPLIER';
      await expectErrorBody(await api.post(BUSINESS, payload, token), 403, 'permission_denied');
    });

    it('401 without a token', async () => {
      const res = await api.app.request(BUSINESS, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(businessExample()),
      });
      await expectErrorBody(res, 401, 'not_authenticated');
    });

    it('400 parse_error for malformed JSON, 404 without the trailing slash', async () => {
      await expectErrorBody(await api.post(BUSINESS, '{"business":', token), 400, 'parse_error');
      await expectErrorBody(await api.post('/v1/data-import/business', businessExample(), token), 404, 'not_found');
    });
  });
});

describe('accounts name business contracts (spec 1.5)', () => {
  const notFound = { code: 'business_contract_not_found', attr: 'business.business_contract_identifier' };
  const contractErrors = (body: { errors: { code: string; attr: string | null }[] }) =>
    body.errors.filter((e) => e.code === 'business_contract_not_found').map(({ code, attr }) => ({ code, attr }));

  it('validate-account and stage: 400 business_contract_not_found until the business exists', async () => {
    for (const path of [VALIDATE, STAGE]) {
      const body = await expectErrorBody(await api.post(path, accountExample(), token), 400, 'account_failed_validation');
      expect(contractErrors(body)).toEqual([notFound]);
    }
    expect(await api.ledger.read.findAccountImportProcess(SUPPLIER, ACCOUNT_EXT)).toBeNull();
    await createOk();
    expect((await api.post(VALIDATE, accountExample(), token)).status).toBe(200);
    expect((await api.post(STAGE, accountExample(), token)).status).toBe(201);
  });

  it('a contract of a business of another import supplier does not count', async () => {
    await createBusinessWithContract(api.ledger, { supplier: OTHER_SUPPLIER, contractIdentifier: CONTRACT });
    const body = await expectErrorBody(await api.post(VALIDATE, accountExample(), token), 400, 'account_failed_validation');
    expect(contractErrors(body)).toEqual([notFound]);
  });

  it('a business account naming no contract is not checked', async () => {
    const payload = accountExample();
    delete payload.business.business_contract_identifier;
    expect((await api.post(VALIDATE, payload, token)).status).toBe(200);
  });

  it('process links the account to the contract: in the AccountProcessed event and in the account projection', async () => {
    const id = await createOk();
    expect((await api.post(STAGE, accountExample(), token)).status).toBe(201);
    const res = await api.post(PROCESS, { external_account_number: ACCOUNT_EXT, import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token);
    expect(res.status).toBe(201);
    const stream = await api.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, ACCOUNT_EXT));
    const processed = stream.find((e) => e.event.type === 'AccountProcessed');
    expect(processed?.event.data).toMatchObject({ businessContractIdentifier: CONTRACT, platformBusinessId: id });
    expect(await api.ledger.read.findAccountImportProcess(SUPPLIER, ACCOUNT_EXT)).toMatchObject({
      state: 'IMPORTED',
      businessContractIdentifier: CONTRACT,
      platformBusinessId: id,
    });
  });

  it('a domestic account is processed without a link', async () => {
    expect((await api.post(STAGE, loadExample('account-domestic.json'), token)).status).toBe(201);
    const res = await api.post(PROCESS, { external_account_number: 'LEG-0000001', import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token);
    expect(res.status).toBe(201);
    const stream = await api.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, 'LEG-0000001'));
    const processed = stream.find((e) => e.event.type === 'AccountProcessed');
    expect(processed?.event.data).not.toHaveProperty('businessContractIdentifier');
    expect(await api.ledger.read.findAccountImportProcess(SUPPLIER, 'LEG-0000001')).toMatchObject({
      businessContractIdentifier: null,
      platformBusinessId: null,
    });
  });

  it('process re-checks the contract: data staged before the business existed is refused, nothing written', async () => {
    // Staged as data staged before this rule existed would be.
    const staged = validateAccountPayload(accountExample());
    if (!staged.ok) throw new Error('account example must validate');
    await stageBeforeReferenceRules(api.ledger, staged.data);
    const request = { external_account_number: ACCOUNT_EXT, import_supplier_code: SUPPLIER, operations_team_name: TEAM };
    const body = await expectErrorBody(await api.post(PROCESS, request, token), 400, 'account_failed_validation');
    expect(contractErrors(body)).toEqual([notFound]);
    expect(await api.ledger.read.findAccountImportProcess(SUPPLIER, ACCOUNT_EXT)).toMatchObject({ state: 'STAGED' });

    await createOk();
    expect((await api.post(PROCESS, request, token)).status).toBe(201);
  });

  it('a dry run of process links nothing', async () => {
    await createOk();
    expect((await api.post(STAGE, accountExample(), token)).status).toBe(201);
    const request = { external_account_number: ACCOUNT_EXT, import_supplier_code: SUPPLIER, operations_team_name: TEAM, dry_run: true };
    await expectErrorBody(await api.post(PROCESS, request, token), 400, 'dry_run_rollback');
    expect(await api.ledger.read.findAccountImportProcess(SUPPLIER, ACCOUNT_EXT)).toMatchObject({
      state: 'STAGED',
      businessContractIdentifier: null,
    });
  });
});

describe('the examples in the order of spec 1.4', () => {
  it('products, a rate update, the business, then the business account: validate, stage, process (linked)', async () => {
    expect((await api.post(PRODUCTS, loadExample('product-rate-update.json'), token)).status).toBe(201);
    const id = await createOk();
    expect((await api.post(VALIDATE, accountExample(), token)).status).toBe(200);
    expect((await api.post(STAGE, accountExample(), token)).status).toBe(201);
    const res = await api.post(PROCESS, { external_account_number: ACCOUNT_EXT, import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token);
    expect(res.status).toBe(201);
    expect(await api.ledger.read.findAccountImportProcess(SUPPLIER, ACCOUNT_EXT)).toMatchObject({
      businessContractIdentifier: CONTRACT,
      platformBusinessId: id,
    });
  });

  it('without the products first, the business is refused (product_code_does_not_exist)', async () => {
    const fresh = await createTestApi({ exampleProducts: false });
    try {
      const body = await expectErrorBody(await fresh.post(BUSINESS, businessExample(), await accessToken(fresh)), 400, 'business_failed_validation');
      expect(new Set(body.errors.map((e) => e.code))).toEqual(new Set(['product_code_does_not_exist']));
    } finally {
      await fresh.close();
    }
  });
});
