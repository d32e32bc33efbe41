import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentVendors, noPaymentVendors, parsePaymentVendors } from '../../src/adapters/payment-vendors.js';
import { loadConfig } from '../../src/config.js';
import { instructionBody, startFakeVendor, type FakeVendor } from '../support/fake-vendor.js';
import { freePort as closedPort } from '../support/net.js';


describe('payment vendor adapter against a fake vendor on 127.0.0.1', () => {
  let fake: FakeVendor;
  const TIMEOUT = 300;
  const vendors = () => createPaymentVendors({ baseUrls: { STRIPE: fake.url }, timeoutMs: TIMEOUT });

  beforeAll(async () => {
    fake = await startFakeVendor();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('found: GET <base>/instructions/<reference> with Accept JSON; the details are kept as given', async () => {
    fake.script('pm_found', { kind: 'found' });
    const answer = await vendors().fetchInstruction('STRIPE', 'pm_found');
    expect(answer).toEqual({ kind: 'found', details: instructionBody('pm_found') });
    expect(fake.hits.at(-1)).toEqual({ reference: 'pm_found', accept: 'application/json', method: 'GET' });
  });

  it('a reference with reserved characters is sent encoded as one path segment', async () => {
    fake.script('MD 12/3?x', { kind: 'found' });
    const answer = await vendors().fetchInstruction('STRIPE', 'MD 12/3?x');
    expect(answer.kind).toBe('found');
    expect(fake.hits.at(-1)?.reference).toBe('MD 12/3?x');
  });

  it('not found: 404 is a rejection carrying the vendor message', async () => {
    fake.script('pm_gone', { kind: 'not-found', message: 'No such payment_method: pm_gone' });
    expect(await vendors().fetchInstruction('STRIPE', 'pm_gone')).toEqual({
      kind: 'rejected',
      status: 404,
      message: 'No such payment_method: pm_gone',
    });
  });

  it('another 4xx is a rejection too; without a message the detail says what the vendor answered', async () => {
    fake.script('pm_bad', { kind: 'status', status: 422 });
    expect(await vendors().fetchInstruction('STRIPE', 'pm_bad')).toEqual({
      kind: 'rejected',
      status: 422,
      message: 'Payment vendor STRIPE refused instruction pm_bad (HTTP 422).',
    });
  });

  it('503 is unavailable (retry as is), with the vendor message when there is one', async () => {
    fake.script('pm_503', { kind: 'status', status: 503, body: { message: 'maintenance' } });
    expect(await vendors().fetchInstruction('STRIPE', 'pm_503')).toEqual({
      kind: 'unavailable',
      reason: 'Payment vendor STRIPE answered HTTP 503: maintenance',
    });
  });

  it('408 and 429 are unavailable, not rejections', async () => {
    fake.script('pm_429', { kind: 'status', status: 429 });
    fake.script('pm_408', { kind: 'status', status: 408 });
    expect((await vendors().fetchInstruction('STRIPE', 'pm_429')).kind).toBe('unavailable');
    expect((await vendors().fetchInstruction('STRIPE', 'pm_408')).kind).toBe('unavailable');
  });

  it('a hang past the timeout is unavailable, after about the timeout', async () => {
    fake.script('pm_hang', { kind: 'hang' });
    const started = Date.now();
    const answer = await vendors().fetchInstruction('STRIPE', 'pm_hang');
    expect(answer).toEqual({ kind: 'unavailable', reason: `Payment vendor STRIPE did not answer within ${TIMEOUT} ms.` });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a 200 that is not an instruction, or is another instruction, is unavailable', async () => {
    fake.script('pm_odd', { kind: 'found', body: { reference: 'pm_odd', type: 'CARD' } });
    fake.script('pm_swap', { kind: 'found', body: instructionBody('pm_other') });
    expect((await vendors().fetchInstruction('STRIPE', 'pm_odd')).kind).toBe('unavailable');
    expect((await vendors().fetchInstruction('STRIPE', 'pm_swap')).kind).toBe('unavailable');
  });

  it('an unreachable vendor is unavailable', async () => {
    const port = await closedPort();
    const down = createPaymentVendors({ baseUrls: { GOCARDLESS: `http://127.0.0.1:${port}` }, timeoutMs: TIMEOUT });
    const answer = await down.fetchInstruction('GOCARDLESS', 'MD1');
    expect(answer.kind).toBe('unavailable');
    expect(answer.kind === 'unavailable' && answer.reason).toMatch(/could not be reached \(ECONNREFUSED\)/);
  });

  it('a vendor name that is not configured is answered without any call', async () => {
    const before = fake.hits.length;
    expect(await vendors().fetchInstruction('stripe', 'pm_found')).toEqual({ kind: 'not-configured' });
    expect(await noPaymentVendors.fetchInstruction('STRIPE', 'pm_found')).toEqual({ kind: 'not-configured' });
    expect(fake.hits.length).toBe(before);
  });
});

describe('LEDGER_PAYMENT_VENDORS', () => {
  it('parses NAME=URL pairs, names kept as written, spaces and empty entries ignored', () => {
    expect(parsePaymentVendors(' STRIPE=http://127.0.0.1:9000/s , GOCARDLESS=https://gc.example/api/,')).toEqual({
      ok: true,
      vendors: { STRIPE: 'http://127.0.0.1:9000/s', GOCARDLESS: 'https://gc.example/api/' },
    });
    expect(parsePaymentVendors('')).toEqual({ ok: true, vendors: {} });
  });

  it.each([
    ['STRIPE', /not NAME=URL/],
    ['=http://x', /not NAME=URL/],
    ['STRIPE=ftp://x', /not an http\(s\) URL/],
    ['STRIPE=http://a,STRIPE=http://b', /given twice/],
  ])('refuses %s', (value, problem) => {
    const parsed = parsePaymentVendors(value);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem).toMatch(problem);
  });

  it('is read by loadConfig with the timeout (default 5 s) and the SMTP settings', () => {
    const config = loadConfig({ LEDGER_PAYMENT_VENDORS: 'STRIPE=http://127.0.0.1:1' });
    expect(config.LEDGER_PAYMENT_VENDORS).toEqual({ STRIPE: 'http://127.0.0.1:1' });
    expect(config.LEDGER_PAYMENT_VENDOR_TIMEOUT_MS).toBe(5_000);
    expect(config.LEDGER_SMTP_URL).toBeUndefined();
    expect(loadConfig({ LEDGER_PAYMENT_VENDOR_TIMEOUT_MS: '1500' }).LEDGER_PAYMENT_VENDOR_TIMEOUT_MS).toBe(1_500);
    expect(loadConfig({ LEDGER_SMTP_URL: 'smtp://127.0.0.1:2525' }).LEDGER_SMTP_URL).toBe('smtp://127.0.0.1:2525');
    expect(() => loadConfig({ LEDGER_PAYMENT_VENDORS: 'STRIPE' })).toThrow(/LEDGER_PAYMENT_VENDORS/);
    expect(() => loadConfig({ LEDGER_SMTP_URL: 'http://mail' })).toThrow(/LEDGER_SMTP_URL/);
  });
});
