import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { businessStreamId } from '../../events/business.js';
import { createBusinessContractsResponseSchema } from '../../src/answers/businesses.js';
import { createBusinessWithContract } from '../support/business.js';
import { accessToken, expectErrorBody, type ErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, createTestApi, loadExample, type TestApi } from '../support/ledger.js';

/**
 * POST business-contracts/create/ (the platform's endpoint) through the real app, on the test
 * store (SQLite, or PostgreSQL in the postgres project): every success and
 * error path, and nothing written on a refusal.
 */

const PATH = '/v1/data-import/business-contracts/create/';
const VALIDATE = '/v1/data-import/validate-account/';
const BIZ = 'BIZ-000123';
const NEW_CONTRACT = 'CTR-2026-000456';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const example = (): any => structuredClone(loadExample('business-contracts.json'));

let api: TestApi;
let token: string;

beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api);
});
afterEach(() => api.close());

const streamVersion = () => api.ledger.store.streamVersion(businessStreamId(SUPPLIER, BIZ));
const codesAndAttrs = (body: ErrorBody) => body.errors.map(({ code, attr }) => ({ code, attr }));

describe('POST business-contracts/create/', () => {
  it('201 {business_contracts: [{identifier}]}: the contract is added to the business and an account can link to it', async () => {
    await createBusinessWithContract(api.ledger);
    const account = loadExample('account-business.json');
    (account['business'] as Record<string, unknown>)['business_contract_identifier'] = NEW_CONTRACT;
    await expectErrorBody(await api.post(VALIDATE, account, token), 400, 'account_failed_validation');

    const res = await api.post(PATH, example(), token);
    expect(res.status).toBe(201);
    expect(createBusinessContractsResponseSchema.strict().parse(await res.json())).toEqual({ business_contracts: [{ identifier: NEW_CONTRACT }] });
    const events = (await api.ledger.store.readStream(businessStreamId(SUPPLIER, BIZ))).map((stored) => stored.event);
    expect(events.map((event) => event.type)).toEqual(['BusinessCreated', 'BusinessContractAdded', 'BusinessContractAdded']);
    expect(events[2]).toMatchObject({ data: { identifier: NEW_CONTRACT, contract: example().business_contracts[0] } });
    expect(await api.ledger.read.findBusinessContract(SUPPLIER, NEW_CONTRACT)).toMatchObject({ externalBusinessIdentifier: BIZ });
    expect((await api.post(VALIDATE, account, token)).status).toBe(200);
  });

  it('several contracts at once, in order', async () => {
    await createBusinessWithContract(api.ledger);
    const body = example();
    body.business_contracts.push({ ...structuredClone(body.business_contracts[0]), identifier: 'CTR-2026-000457' });
    const res = await api.post(PATH, body, token);
    expect(await res.json()).toEqual({ business_contracts: [{ identifier: NEW_CONTRACT }, { identifier: 'CTR-2026-000457' }] });
  });

  it('404 business_not_found for a business that was never created; nothing written', async () => {
    await expectErrorBody(await api.post(PATH, example(), token), 404, 'business_not_found');
    expect(await streamVersion()).toBe(0);
  });

  it('400 business_failed_validation for a broken payload (every problem, DRF codes)', async () => {
    await createBusinessWithContract(api.ledger);
    const body = await expectErrorBody(await api.post(PATH, { ...example(), business_contracts: [] }, token), 400, 'business_failed_validation');
    expect(codesAndAttrs(body)).toEqual([{ code: 'empty', attr: 'business_contracts' }]);
    const broken = example();
    broken.business_contracts[0].versions[0].terms[0].term_type = 'NOPE';
    delete broken.external_business_identifier;
    const second = await expectErrorBody(await api.post(PATH, broken, token), 400, 'business_failed_validation');
    expect(codesAndAttrs(second)).toEqual(
      expect.arrayContaining([
        { code: 'required', attr: 'external_business_identifier' },
        { code: 'invalid_choice', attr: 'business_contracts.0.versions.0.terms.0.term_type' },
      ]),
    );
    expect(await streamVersion()).toBe(2);
  });

  it('400 for duplicate identifiers: in the request, already on this business, or held by another business of the supplier', async () => {
    await createBusinessWithContract(api.ledger);
    await createBusinessWithContract(api.ledger, { externalBusinessIdentifier: 'BIZ-OTHER', contractIdentifier: 'CTR-OTHER' });
    const twice = example();
    twice.business_contracts.push(structuredClone(twice.business_contracts[0]));
    const inRequest = await expectErrorBody(await api.post(PATH, twice, token), 400, 'business_failed_validation');
    expect(codesAndAttrs(inRequest)).toEqual([{ code: 'duplicate_contract_identifiers', attr: 'business_contracts.1.identifier' }]);

    expect((await api.post(PATH, example(), token)).status).toBe(201);
    const again = await expectErrorBody(await api.post(PATH, example(), token), 400, 'business_failed_validation');
    expect(codesAndAttrs(again)).toEqual([{ code: 'contract_with_identifier_exists', attr: 'business_contracts.0.identifier' }]);

    const others = example();
    others.business_contracts[0].identifier = 'CTR-OTHER';
    const elsewhere = await expectErrorBody(await api.post(PATH, others, token), 400, 'business_failed_validation');
    expect(codesAndAttrs(elsewhere)).toEqual([{ code: 'contract_with_identifier_exists', attr: 'business_contracts.0.identifier' }]);
    expect(await streamVersion()).toBe(3);
  });

  it('400 product_code_does_not_exist for a product the contract names that does not exist', async () => {
    await createBusinessWithContract(api.ledger);
    const body = example();
    body.business_contracts[0].versions[0].terms[1].schedules[0].items[0].product_code = 'NO-SUCH-PRODUCT';
    const error = await expectErrorBody(await api.post(PATH, body, token), 400, 'business_failed_validation');
    expect(codesAndAttrs(error)).toEqual([
      { code: 'product_code_does_not_exist', attr: 'business_contracts.0.versions.0.terms.1.schedules.0.items.0.product_code' },
    ]);
  });

  it('403 permission_denied for a key of another supplier, before the payload is looked at; another supplier\'s business is not found', async () => {
    await createBusinessWithContract(api.ledger, { supplier: OTHER_SUPPLIER });
    await expectErrorBody(await api.post(PATH, { ...example(), import_supplier_code: OTHER_SUPPLIER, business_contracts: 'x' }, token), 403, 'permission_denied');
    await expectErrorBody(await api.post(PATH, example(), token), 404, 'business_not_found');
  });

  it('401 without a token; the API key itself works', async () => {
    await createBusinessWithContract(api.ledger);
    const res = await api.app.request(PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(example()) });
    await expectErrorBody(res, 401, 'not_authenticated');
    expect((await api.post(PATH, example(), api.key)).status).toBe(201);
  });

  it('Idempotency-Key: the same request again is the stored 201, nothing added twice', async () => {
    await createBusinessWithContract(api.ledger);
    const first = await api.post(PATH, example(), token, { 'idempotency-key': 'contracts-1' });
    const second = await api.post(PATH, example(), token, { 'idempotency-key': 'contracts-1' });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
    expect(await streamVersion()).toBe(3);
  });
});
