import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNetworkOperator, networkOperatorsFromConfig, parseRetryAfter, type NetworkOperator } from '../../src/adapters/network-operators.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startFakeOperator, supplyPointBody, type FakeOperator } from '../support/fake-operator.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const clock = () => NOW;
const PRM = '09111642617347';

describe('network operator adapter (against a fake operator on 127.0.0.1)', () => {
  let fake: FakeOperator;
  let electricity: NetworkOperator;
  beforeAll(async () => {
    fake = await startFakeOperator();
    // A generous timeout for the answers (a loaded machine is slow); the timeout test has its own, short one.
    electricity = createNetworkOperator('ELECTRICITY', { baseUrl: fake.url, timeoutMs: 5_000, clock });
  });
  afterAll(() => fake.close());

  it('GETs <base>/supply-points/<id> with Accept: application/json and keeps the 200 body as given', async () => {
    fake.script(PRM, [{ kind: 'found' }]);
    const answer = await electricity.fetchSupplyPoint(PRM);
    expect(answer).toEqual({
      kind: 'found',
      supplyPoint: { identifier: PRM, address: { line1: '12 rue des Lilas', postcode: '69003', city: 'Lyon' }, details: supplyPointBody(PRM) },
    });
    expect(fake.hits.at(-1)).toEqual({ id: PRM, accept: 'application/json', method: 'GET' });
  });

  it('works with a base URL that ends in a slash', async () => {
    const slash = createNetworkOperator('ELECTRICITY', { baseUrl: `${fake.url}/`, timeoutMs: 150, clock });
    fake.script('30002851234567', [{ kind: 'found' }]);
    expect((await slash.fetchSupplyPoint('30002851234567')).kind).toBe('found');
  });

  it('404: refused with the body\'s message (or a clear reason without one)', async () => {
    fake.script('10000000000001', [{ kind: 'not-found', message: 'PRM inconnu' }]);
    expect(await electricity.fetchSupplyPoint('10000000000001')).toEqual({ kind: 'refused', reason: 'PRM inconnu' });
    fake.script('10000000000002', [{ kind: 'status', status: 404, body: 'nope' }]);
    expect(await electricity.fetchSupplyPoint('10000000000002')).toEqual({
      kind: 'refused',
      reason: expect.stringMatching(/does not know supply point 10000000000002/),
    });
  });

  it('another 4xx: refused at once with the operator\'s reason', async () => {
    fake.script('10000000000003', [{ kind: 'status', status: 422, body: { message: 'Segment C1 not served' } }]);
    expect(await electricity.fetchSupplyPoint('10000000000003')).toEqual({ kind: 'refused', reason: 'Segment C1 not served' });
    fake.script('10000000000004', [{ kind: 'status', status: 403 }]);
    expect(await electricity.fetchSupplyPoint('10000000000004')).toEqual({ kind: 'refused', reason: expect.stringMatching(/HTTP 403/) });
  });

  it('503 and 429 are transient, with Retry-After in seconds or as an HTTP date', async () => {
    fake.script('10000000000005', [{ kind: 'status', status: 503, body: { message: 'maintenance' } }]);
    expect(await electricity.fetchSupplyPoint('10000000000005')).toEqual({
      kind: 'transient',
      reason: expect.stringMatching(/HTTP 503: maintenance/),
      retryAfterMs: null,
    });
    fake.script('10000000000006', [{ kind: 'status', status: 429, retryAfter: '7' }]);
    expect(await electricity.fetchSupplyPoint('10000000000006')).toMatchObject({ kind: 'transient', retryAfterMs: 7_000 });
    fake.script('10000000000007', [{ kind: 'status', status: 429, retryAfter: 'Sat, 21 Nov 2026 10:00:30 GMT' }]);
    expect(await electricity.fetchSupplyPoint('10000000000007')).toMatchObject({ kind: 'transient', retryAfterMs: 30_000 });
    fake.script('10000000000008', [{ kind: 'status', status: 408 }]);
    expect((await electricity.fetchSupplyPoint('10000000000008')).kind).toBe('transient');
  });

  it('a slow operator times out (transient), and so does an unreachable one', async () => {
    fake.script('10000000000009', [{ kind: 'slow', delayMs: 2_000 }]);
    const hurried = createNetworkOperator('ELECTRICITY', { baseUrl: fake.url, timeoutMs: 150, clock });
    expect(await hurried.fetchSupplyPoint('10000000000009')).toEqual({
      kind: 'transient',
      reason: expect.stringMatching(/did not answer within 150 ms/),
      retryAfterMs: null,
    });
    const closed = createNetworkOperator('GAS', { baseUrl: 'http://127.0.0.1:1', timeoutMs: 1_000, clock });
    expect(await closed.fetchSupplyPoint('GI123456')).toMatchObject({ kind: 'transient', reason: expect.stringMatching(/could not be reached/) });
  });

  it('a call aborted by the caller reports "aborted", not a failure', async () => {
    fake.script('10000000000010', [{ kind: 'slow', delayMs: 2_000 }]);
    const controller = new AbortController();
    const call = electricity.fetchSupplyPoint('10000000000010', controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect(await call).toEqual({ kind: 'aborted' });
  });

  it('a 200 that is not a supply point (or another one) is refused rather than stored', async () => {
    fake.script('10000000000011', [{ kind: 'found', body: { identifier: '10000000000011', address: { line1: 'x' } } }]);
    expect(await electricity.fetchSupplyPoint('10000000000011')).toEqual({
      kind: 'refused',
      reason: expect.stringMatching(/not a supply point \(address\.postcode/),
    });
    fake.script('10000000000012', [{ kind: 'found', body: supplyPointBody('10000000000099') }]);
    expect(await electricity.fetchSupplyPoint('10000000000012')).toEqual({
      kind: 'refused',
      reason: expect.stringMatching(/answered for supply point 10000000000099/),
    });
  });

  it('not configured: refuses every request with a reason naming the variable, without any call', async () => {
    const gas = createNetworkOperator('GAS', { baseUrl: undefined, timeoutMs: 150, clock });
    expect(gas.unavailableReason).toMatch(/LEDGER_GAS_OPERATOR_URL/);
    expect(await gas.fetchSupplyPoint('GI123456')).toEqual({ kind: 'refused', reason: gas.unavailableReason });
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates, ignores anything else', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 12 ', NOW)).toBe(12_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:59:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('soon', NOW)).toBeNull();
    expect(parseRetryAfter('-5', NOW)).toBeNull();
    expect(parseRetryAfter(null, NOW)).toBeNull();
  });
});

describe('operator configuration (env)', () => {
  it('URLs are optional (empty means unset), must be http(s); the timeout defaults to 10 s', () => {
    const config = loadConfig({ LEDGER_ELECTRICITY_OPERATOR_URL: 'https://enedis.example/api', LEDGER_GAS_OPERATOR_URL: '' });
    expect(config).toMatchObject({
      LEDGER_ELECTRICITY_OPERATOR_URL: 'https://enedis.example/api',
      LEDGER_GAS_OPERATOR_URL: undefined,
      LEDGER_OPERATOR_TIMEOUT_MS: 10_000,
    });
    const operators = networkOperatorsFromConfig(config, clock);
    expect(operators.ELECTRICITY.unavailableReason).toBeNull();
    expect(operators.GAS.unavailableReason).toMatch(/LEDGER_GAS_OPERATOR_URL/);
    expect(() => loadConfig({ LEDGER_GAS_OPERATOR_URL: 'ftp://grdf.example' })).toThrow(ConfigError);
    expect(() => loadConfig({ LEDGER_OPERATOR_TIMEOUT_MS: '10' })).toThrow(ConfigError);
  });
});
