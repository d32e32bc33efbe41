import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessToken, expectErrorBody, type ErrorBody } from '../support/http.js';
import { createTestApi, loadExample, type TestApi } from '../support/ledger.js';

/** Spec 4.2 (validate-products/) and 4.3 (products/), through the real app over a test ledger (SQLite, or PostgreSQL with LEDGER_TEST_STORE=postgres). */

const VALIDATE = '/v1/data-import/validate-products/';
const CREATE = '/v1/data-import/products/';

/** Loosely typed on purpose: the tests break payloads in ways the product type forbids. */
type Payload = any;
const products = (): Payload => structuredClone(loadExample('products.json'));
const rateUpdate = (): Payload => structuredClone(loadExample('product-rate-update.json'));
const codesAndAttrs = (body: ErrorBody) => body.errors.map(({ code, attr }) => ({ code, attr }));

let api: TestApi;
let token: string;

beforeEach(async () => {
  api = await createTestApi({ exampleProducts: false });
  token = await accessToken(api, api.key);
});
afterEach(async () => {
  await api.close();
});

/** Rows of `table`, counted on a connection of its own to the database behind the app. */
const count = async (table: string) => Number((await api.execute(`SELECT COUNT(*) AS n FROM ${table}`))[0]?.['n']);
const eventCount = () => count('events');
const productCount = () => count('products');

async function createOk(body: unknown): Promise<unknown> {
  const res = await api.post(CREATE, body, token);
  const json = await res.json();
  expect({ status: res.status, json }).toMatchObject({ status: 201 });
  return json;
}

describe('the examples, in the order of spec 1.4', () => {
  it('validate then create products.json, then validate and apply product-rate-update.json', async () => {
    const validate = await api.post(VALIDATE, products(), token);
    expect(validate.status).toBe(200);
    expect(await validate.json()).toEqual(products());
    expect(await productCount()).toBe(0);

    expect(await createOk(products())).toEqual({
      products: [
        { code: 'ELEC-FIXE-2025', created: true, rates_added: 5 },
        { code: 'GAZ-FIXE-2025', created: true, rates_added: 2 },
      ],
    });

    const validateUpdate = await api.post(VALIDATE, rateUpdate(), token);
    expect(validateUpdate.status).toBe(200);
    expect(await validateUpdate.json()).toEqual(rateUpdate());

    expect(await createOk(rateUpdate())).toEqual({ products: [{ code: 'ELEC-FIXE-2025', created: false, rates_added: 1 }] });

    const elec = await api.ledger.read.findProduct('ELEC-FIXE-2025');
    // Attribute changes of the update were ignored (its notes differ from products.json's).
    expect(elec?.notes).toBe('Fixed-price electricity offer migrated from the legacy catalogue');
    const base = elec?.rates.filter((r) => r.bandKey.startsWith('CONSUMPTION_CHARGE|provider_calendar=BASE'));
    expect(base?.map((r) => [r.validFrom, r.validTo, r.pricePerUnit])).toEqual([
      ['2025-01-01T00:00:00Z', '2025-08-01T00:00:00Z', '0.2016'],
      ['2025-08-01T00:00:00Z', null, '0.1952'],
    ]);
    expect(elec?.rates.filter((r) => r.validTo === null)).toHaveLength(5);
    expect((await api.ledger.read.findProduct('GAZ-FIXE-2025'))?.marketName).toBe('FRA_GAS');
  });

  it('sending the same products again adds nothing: 201 with created false and rates_added 0', async () => {
    await createOk(products());
    await createOk(rateUpdate());
    const before = await eventCount();
    expect(await createOk(products())).toEqual({
      products: [
        { code: 'ELEC-FIXE-2025', created: false, rates_added: 0 },
        { code: 'GAZ-FIXE-2025', created: false, rates_added: 0 },
      ],
    });
    expect(await createOk(rateUpdate())).toEqual({ products: [{ code: 'ELEC-FIXE-2025', created: false, rates_added: 0 }] });
    expect(await eventCount()).toBe(before);
  });

  it('validate-products/ drops unknown fields and writes nothing', async () => {
    const body = products();
    body[0].legacy_id = 42;
    body[0].rates[0].params.colour = 'blue';
    const before = await eventCount();
    const res = await api.post(VALIDATE, body, token);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(products());
    expect(await eventCount()).toBe(before);
  });
});

describe('rules against existing products (spec 4.3), on validate-products/ and products/ alike', () => {
  beforeEach(async () => {
    await createOk(products());
  });

  for (const path of [VALIDATE, CREATE]) {
    it(`${path}: a rate whose params match no active rate is 400 no_matching_rate`, async () => {
      const body = rateUpdate();
      body[0].rates[0].params.max_subscribed_max_power = 12;
      const before = await eventCount();
      const err = await expectErrorBody(await api.post(path, body, token), 400, 'no_matching_rate');
      expect(codesAndAttrs(err)).toEqual([{ code: 'no_matching_rate', attr: '0.rates.0.params' }]);
      expect(await eventCount()).toBe(before);
    });

    it(`${path}: a rate starting before its band is 400 no_matching_rate`, async () => {
      const body = rateUpdate();
      body[0].rates[0].valid_from_date = '2024-12-31';
      await expectErrorBody(await api.post(path, body, token), 400, 'no_matching_rate');
    });

    it(`${path}: a rate not after the latest of its band is 400 rate_not_continuous`, async () => {
      const body = rateUpdate();
      body[0].rates[0].valid_from_date = '2025-01-01';
      const err = await expectErrorBody(await api.post(path, body, token), 400, 'rate_not_continuous');
      expect(codesAndAttrs(err)).toEqual([{ code: 'rate_not_continuous', attr: '0.rates.0.valid_from_date' }]);
    });
  }

  it('the request is atomic: a failing product leaves the valid products before it unwritten', async () => {
    const fresh = products()[1];
    fresh.code = 'GAZ-NEW';
    const broken = rateUpdate()[0];
    broken.rates[0].valid_from_date = '2024-06-01';
    const before = await eventCount();
    const err = await expectErrorBody(await api.post(CREATE, [fresh, rateUpdate()[0], broken], token), 400, 'no_matching_rate');
    // The attr starts with the failing product's index in the request.
    expect(codesAndAttrs(err)).toEqual([{ code: 'no_matching_rate', attr: '2.rates.0.params' }]);
    expect(await eventCount()).toBe(before);
    expect(await api.ledger.read.findProduct('GAZ-NEW')).toBeNull();
    expect((await api.ledger.read.findProduct('ELEC-FIXE-2025'))?.rates).toHaveLength(5);
  });

  it('one request may create a product and extend it: entries are applied in order', async () => {
    const fresh = products()[1];
    fresh.code = 'GAZ-NEW';
    const next = structuredClone(fresh);
    next.rates = [{ ...fresh.rates[1], valid_from_date: '2025-07-01', price_per_unit: 0.12 }];
    expect(await createOk([fresh, next])).toEqual({
      products: [
        { code: 'GAZ-NEW', created: true, rates_added: 2 },
        { code: 'GAZ-NEW', created: false, rates_added: 1 },
      ],
    });
  });
});

describe('payload rules (spec 2.5): 400 product_failed_validation, attr from the product index', () => {
  const cases: { rule: string; attr: string; code: string; mutate: (p: Payload) => void }[] = [
    { rule: 'code characters', attr: '0.code', code: 'invalid', mutate: (p) => (p[0].code = 'elec fixe') },
    { rule: 'code length', attr: '1.code', code: 'max_length', mutate: (p) => (p[1].code = 'G'.repeat(129)) },
    { rule: 'market_name', attr: '0.market_name', code: 'invalid_choice', mutate: (p) => (p[0].market_name = 'FRA_HEAT') },
    { rule: 'electricity segments', attr: '0.params.segments', code: 'required', mutate: (p) => delete p[0].params.segments },
    { rule: 'no gas segments', attr: '1.params.segments', code: 'field_not_allowed', mutate: (p) => (p[1].params.segments = 'C5') },
    { rule: 'unit type of band', attr: '0.rates.2.unit_type', code: 'unit_type_does_not_match_band_category', mutate: (p) => (p[0].rates[2].unit_type = 'KWH_CONSUMPION') },
    { rule: 'provider calendar', attr: '0.rates.0.params.provider_calendar', code: 'required', mutate: (p) => delete p[0].rates[0].params.provider_calendar },
    { rule: 'consumption temp class', attr: '0.rates.1.params.temp_class', code: 'required', mutate: (p) => delete p[0].rates[1].params.temp_class },
    { rule: 'temp class of calendar', attr: '0.rates.3.params.temp_class', code: 'temp_class_does_not_match_calendar', mutate: (p) => (p[0].rates[3].params.temp_class = 'BASE') },
    { rule: 'no standing temp class', attr: '0.rates.2.params.temp_class', code: 'field_not_allowed', mutate: (p) => (p[0].rates[2].params.temp_class = 'HP') },
    { rule: 'gas price level', attr: '1.rates.1.params.price_level', code: 'required', mutate: (p) => delete p[1].rates[1].params.price_level },
    { rule: 'no standing price level', attr: '1.rates.0.params.price_level', code: 'field_not_allowed', mutate: (p) => (p[1].rates[0].params.price_level = 1) },
    { rule: 'power bounds', attr: '0.rates.4.params.max_subscribed_max_power', code: 'min_greater_than_max', mutate: (p) => (p[0].rates[4].params.min_subscribed_max_power = 12) },
    { rule: 'consumption bounds', attr: '1.rates.0.params.max_annual_consumption', code: 'min_greater_than_max', mutate: (p) => (p[1].rates[0].params.min_annual_consumption = 6001) },
    { rule: 'price not negative', attr: '1.rates.1.price_per_unit', code: 'min_value', mutate: (p) => (p[1].rates[1].price_per_unit = -0.1) },
    { rule: 'price a number', attr: '0.rates.0.price_per_unit', code: 'invalid', mutate: (p) => (p[0].rates[0].price_per_unit = 'free') },
    { rule: 'distinct valid_from per band', attr: '0.rates.5.valid_from_date', code: 'duplicate_rate_valid_from', mutate: (p) => p[0].rates.push({ ...p[0].rates[4], price_per_unit: 0.2 }) },
  ];

  for (const { rule, attr, code, mutate } of cases) {
    it(`${rule}: ${code} at ${attr}, on both endpoints, nothing written`, async () => {
      const body = products();
      mutate(body);
      for (const path of [VALIDATE, CREATE]) {
        const err = await expectErrorBody(await api.post(path, body, token), 400, 'product_failed_validation');
        expect(codesAndAttrs(err)).toContainEqual({ code, attr });
      }
      expect(await productCount()).toBe(0);
    });
  }

  it('the body must be a non-empty list', async () => {
    expect(codesAndAttrs(await expectErrorBody(await api.post(CREATE, products()[0], token), 400, 'product_failed_validation'))).toEqual([
      { code: 'not_a_list', attr: 'non_field_errors' },
    ]);
    expect(codesAndAttrs(await expectErrorBody(await api.post(VALIDATE, [], token), 400, 'product_failed_validation'))).toEqual([
      { code: 'empty', attr: 'non_field_errors' },
    ]);
  });

  it('malformed JSON is 400 parse_error', async () => {
    await expectErrorBody(await api.post(CREATE, '[{"code": ', token), 400, 'parse_error');
  });
});

describe('authentication: products are the shared catalogue', () => {
  it('needs a token (401), but any valid token may validate and create, whatever its suppliers', async () => {
    const res = await api.app.request(CREATE, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(products()) });
    await expectErrorBody(res, 401, 'not_authenticated');
    const other = await accessToken(api, api.otherKey);
    expect((await api.post(VALIDATE, products(), other)).status).toBe(200);
    expect((await api.post(CREATE, products(), other)).status).toBe(201);
  });

  it('records the caller key as the actor of the events', async () => {
    await createOk(products());
    const stream = await api.ledger.store.readStream('product:GAZ-FIXE-2025');
    expect(stream.map((e) => [e.event.type, e.metadata.actor])).toEqual([
      ['ProductCreated', api.keyId],
      ['RatesAdded', api.keyId],
    ]);
  });
});
