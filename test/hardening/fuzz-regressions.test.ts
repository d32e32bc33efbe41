import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { endpoints, type Endpoint } from '../support/endpoints.js';
import { expectErrorBody } from '../support/http.js';

/** One test per bug the fuzz test (fuzz-endpoints.ts) found, each the request that showed it. */

let world: EndpointWorld;
beforeAll(async () => {
  world = await createEndpointWorld();
});
afterAll(() => world.close());

const endpoint = (name: string): Endpoint => {
  const found = endpoints.find((e) => e.name === name);
  if (!found) throw new Error(name);
  return found;
};
const example = (e: Endpoint): Record<string, any> => endpoint(e.name).payloads(world.params(e))[0] as Record<string, any>;

describe('bugs found by fuzzing', () => {
  it('GraphQL: a mutation without its variables (or with variables of the wrong type) was a 500; now a 400 with GraphQL errors', async () => {
    const graphql = endpoint('POST /v1/graphql/ (obtainToken)');
    const { query } = example(graphql) as { query: string };
    for (const body of [{ query }, { query, variables: true }, { query, variables: { input: 5 } }, { query, operationName: 'Nope' }]) {
      const res = await world.request(graphql, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { errors: unknown[] }).errors.length).toBeGreaterThan(0);
    }
  });

  it('business/: contract metadata nested 100,000 deep overflowed the stack in schema validation (500); now 400 nesting_too_deep', async () => {
    const business = endpoint('POST business/');
    const body = example(business);
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const text = JSON.stringify(body).replace('"STANDARD"', deep);
    expect(text).not.toBe(JSON.stringify(body));
    const before = await world.eventCount();
    const res = await world.request(business, { raw: text });
    const error = await expectErrorBody(res, 400, 'nesting_too_deep');
    expect(error.errors[0]?.attr).toMatch(/^business\.business_contracts\.0\.versions\.0\.terms\.0\.metadata\.cee_formula_type/);
    expect(await world.eventCount()).toBe(before);
  });

  it('a lone surrogate was stored as bytes that read back as U+FFFD (the log no longer held what was decided); now 400 invalid_unicode', async () => {
    const stage = endpoint('POST account-import-process/create-or-update/');
    const body = example(stage);
    body['customers'][0]['given_name'] = 'Paul\ud800';
    const before = await world.eventCount();
    const error = await expectErrorBody(await world.request(stage, { body }), 400, 'invalid_unicode');
    expect(error.errors[0]?.attr).toBe('customers.0.given_name');
    // Two account numbers differing only in a lone surrogate would have read back as the same one.
    const notes = endpoint('POST notes/create/');
    const noteBody = example(notes);
    noteBody['external_account_number'] = 'LEG-0000001\udc00';
    await expectErrorBody(await world.request(notes, { body: noteBody }), 400, 'invalid_unicode');
    expect(await world.eventCount()).toBe(before);
  });

  it('numbers a double cannot hold were stored as another value (a price of 0.1000000000000000001 as 0.1, an amount of 35.200000000000001 as 35.20); now 400', async () => {
    const before = await world.eventCount();
    const products = endpoint('POST products/');
    const productText = JSON.stringify(example(products)).replace(/"min_annual_consumption":0/, '"min_annual_consumption":9007199254740993');
    expect(productText).toContain('9007199254740993');
    await expectErrorBody(await world.request(products, { raw: productText }), 400, 'number_precision_lost');
    const transactions = endpoint('POST transactions/create/');
    const txText = JSON.stringify(example(transactions)).replace('"amount":35.2', '"amount":35.200000000000001');
    const error = await expectErrorBody(await world.request(transactions, { raw: txText }), 400, 'number_precision_lost');
    expect(error.errors[0]?.attr).toBe('transactions.0.amount');
    await expectErrorBody(await world.request(transactions, { raw: txText.replace('35.200000000000001', '1e400') }), 400, 'number_out_of_range');
    expect(await world.eventCount()).toBe(before);
  });
});
