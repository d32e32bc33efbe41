import { afterEach, describe, expect, it } from 'vitest';
import { validateAccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { accessToken, expectErrorBody, type ErrorBody } from '../support/http.js';
import { stageBeforeReferenceRules } from '../support/account-records.js';
import { SUPPLIER, TEAM, createTestApi, loadExample, type TestApi } from '../support/ledger.js';

/**
 * Accounts check what they reference: every agreement's tariff_code is an
 * existing product of the supply point's market, on validate-account, stage and process.
 */

const VALIDATE = '/v1/data-import/validate-account/';
const STAGE = '/v1/data-import/account-import-process/create-or-update/';
const PROCESS = '/v1/data-import/account-import-process/process/';
const PRODUCTS = '/v1/data-import/products/';
const ELEC_AGREEMENT = 'supply_addresses.0.supply_points.0.agreements.0.tariff_code';
const GAS_AGREEMENT = 'supply_addresses.0.supply_points.1.agreements.0.tariff_code';

type Payload = any;
const domestic = (): Payload => structuredClone(loadExample('account-domestic.json'));
const codesAndAttrs = (body: ErrorBody) => body.errors.map(({ code, attr }) => ({ code, attr }));

let api: TestApi | undefined;
afterEach(() => api?.close());

async function setUp(exampleProducts: boolean): Promise<{ api: TestApi; token: string }> {
  api = await createTestApi({ exampleProducts });
  return { api, token: await accessToken(api) };
}

describe('agreements name existing products of their market', () => {
  it('validate-account: 200 once the products exist (spec 1.4: products first)', async () => {
    const { api, token } = await setUp(false);
    const before = await expectErrorBody(await api.post(VALIDATE, domestic(), token), 400, 'account_failed_validation');
    expect(codesAndAttrs(before)).toEqual([
      { code: 'product_code_does_not_exist', attr: ELEC_AGREEMENT },
      { code: 'product_code_does_not_exist', attr: GAS_AGREEMENT },
    ]);
    expect((await api.post(PRODUCTS, loadExample('products.json'), token)).status).toBe(201);
    expect((await api.post(VALIDATE, domestic(), token)).status).toBe(200);
  });

  it('an unknown tariff code is product_code_does_not_exist at the agreement path', async () => {
    const { api, token } = await setUp(true);
    const payload = domestic();
    payload.supply_addresses[0].supply_points[1].agreements[0].tariff_code = 'GAZ-UNKNOWN';
    for (const path of [VALIDATE, STAGE]) {
      const err = await expectErrorBody(await api.post(path, payload, token), 400, 'account_failed_validation');
      expect(codesAndAttrs(err)).toEqual([{ code: 'product_code_does_not_exist', attr: GAS_AGREEMENT }]);
    }
  });

  it('a product of the other market is product_market_mismatch (both directions)', async () => {
    const { api, token } = await setUp(true);
    const payload = domestic();
    payload.supply_addresses[0].supply_points[0].agreements[0].tariff_code = 'GAZ-FIXE-2025';
    payload.supply_addresses[0].supply_points[1].agreements[0].tariff_code = 'ELEC-FIXE-2025';
    for (const path of [VALIDATE, STAGE]) {
      const err = await expectErrorBody(await api.post(path, payload, token), 400, 'account_failed_validation');
      expect(codesAndAttrs(err)).toEqual([
        { code: 'product_market_mismatch', attr: ELEC_AGREEMENT },
        { code: 'product_market_mismatch', attr: GAS_AGREEMENT },
      ]);
    }
  });

  it('every agreement of a supply point is checked (index in the path)', async () => {
    const { api, token } = await setUp(true);
    const payload = domestic();
    const agreements = payload.supply_addresses[0].supply_points[0].agreements;
    agreements.push({ tariff_code: 'ELEC-NOPE', effective_from: '2026-07-01' });
    const err = await expectErrorBody(await api.post(VALIDATE, payload, token), 400, 'account_failed_validation');
    expect(codesAndAttrs(err)).toEqual([
      { code: 'product_code_does_not_exist', attr: 'supply_addresses.0.supply_points.0.agreements.1.tariff_code' },
    ]);
  });

  it('process re-checks the staged agreements: 400 account_failed_validation, nothing imported', async () => {
    const { api, token } = await setUp(false);
    // Staged as data staged before products were required would be.
    const staged = validateAccountPayload(domestic());
    if (!staged.ok) throw new Error('example must validate');
    await stageBeforeReferenceRules(api.ledger, staged.data);
    const request = { external_account_number: 'LEG-0000001', import_supplier_code: SUPPLIER, operations_team_name: TEAM };
    const err = await expectErrorBody(await api.post(PROCESS, request, token), 400, 'account_failed_validation');
    expect(codesAndAttrs(err)).toContainEqual({ code: 'product_code_does_not_exist', attr: ELEC_AGREEMENT });
    expect((await api.ledger.read.findAccountImportProcess(SUPPLIER, 'LEG-0000001'))?.state).toBe('STAGED');

    expect((await api.post(PRODUCTS, loadExample('products.json'), token)).status).toBe(201);
    expect((await api.post(PROCESS, request, token)).status).toBe(201);
  });
});
