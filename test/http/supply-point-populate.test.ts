import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { supplyPointPopulateBatchStreamId, supplyPointPopulateRequestStreamId } from '../../events/supply-point-populate.js';
import { createNetworkOperator } from '../../src/adapters/network-operators.js';
import { createApiKey } from '../../src/application/operator.js';
import { startFakeOperator, supplyPointBody, type FakeOperator } from '../support/fake-operator.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';
import { hangUntilAborted, scriptedOperator, testWorker, type OperatorCall } from '../worker/worker-support.js';

/** Spec 4.5 (populate) and the batch status endpoint, through the real app; the worker against a fake operator over HTTP. */

const POPULATE = '/v1/data-import/supply-point/populate/';
const statusPath = (batchId: string) => `${POPULATE}${batchId}/`;

interface BatchStatus {
  status: 'PENDING' | 'IN_PROGRESS' | 'COMPLETED';
  imported_requests: { prm_ids: string[]; pce_ids: string[] };
  pending_requests: { prm_ids: string[]; pce_ids: string[] };
  errored_requests: { prms: { id: string; errored_reason: string }[]; pces: { id: string; errored_reason: string }[] };
}

let api: TestApi;
let token: string;
let fake: FakeOperator;

beforeAll(async () => {
  fake = await startFakeOperator();
});
afterAll(() => fake.close());

beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api, api.key);
});
afterEach(() => api.close());

async function populate(body: unknown, withToken = token): Promise<string> {
  const res = await api.post(POPULATE, body, withToken);
  expect(res.status).toBe(201);
  const json = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(json)).toEqual(['batch_id']);
  expect(typeof json['batch_id']).toBe('string');
  return json['batch_id'] as string;
}

async function status(batchId: string, withToken = token): Promise<BatchStatus> {
  const res = await api.get(statusPath(batchId), withToken);
  expect(res.status).toBe(200);
  return (await res.json()) as BatchStatus;
}

describe('POST supply-point/populate/', () => {
  it('answers 201 {batch_id} at once, with the batch and one request per id already in the log', async () => {
    const batchId = await populate(loadExample('supply-point-populate.json'));
    const batch = await api.ledger.store.readStream(supplyPointPopulateBatchStreamId(batchId));
    expect(batch.map((e) => e.event.type)).toEqual([
      'SupplyPointPopulateBatchCreated',
      'SupplyPointPopulateRequested',
      'SupplyPointPopulateRequested',
      'SupplyPointPopulateRequested',
      'SupplyPointPopulateRequested',
    ]);
    expect(batch[0]?.event.data).toMatchObject({ customerCategory: 'Domestic', importSuppliers: [SUPPLIER], prmCount: 2, pceCount: 2 });
    expect(batch[0]?.metadata.actor).toBe(api.keyId);
    expect(await status(batchId)).toEqual({
      status: 'PENDING',
      imported_requests: { prm_ids: [], pce_ids: [] },
      pending_requests: { prm_ids: ['09111642617347', '30002851234567'], pce_ids: ['21461231498752', 'GI123456'] },
      errored_requests: { prms: [], pces: [] },
    });
  });

  it('400 validation_error with one item per problem; nothing is recorded', async () => {
    const before = (await api.ledger.store.readAll(0, 100_000)).length;
    const res = await api.post(POPULATE, { prm_ids: ['123', '09111642617347', '09111642617347'], pce_ids: ['GX123456'], customer_category: 'Retail' }, token);
    const body = await expectErrorBody(res, 400, 'validation_error');
    expect(body.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([
      { code: 'invalid_choice', attr: 'customer_category' },
    ]);
    const res2 = await api.post(POPULATE, { prm_ids: ['123', '09111642617347', '09111642617347'], pce_ids: ['GX123456'], customer_category: 'Domestic' }, token);
    const body2 = await expectErrorBody(res2, 400, 'validation_error');
    expect(body2.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([
      { code: 'invalid_supply_point_identifier', attr: 'prm_ids.0' },
      { code: 'duplicate_supply_point_identifier', attr: 'prm_ids.2' },
      { code: 'invalid_supply_point_identifier', attr: 'pce_ids.0' },
    ]);
    const empty = await expectErrorBody(await api.post(POPULATE, { prm_ids: [], customer_category: 'Domestic' }, token), 400, 'validation_error');
    expect(empty.errors).toEqual([{ code: 'no_supply_point_identifiers', attr: 'non_field_errors', detail: expect.any(String) }]);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `1${String(i).padStart(13, '0')}`);
    const tooMany = await expectErrorBody(
      await api.post(POPULATE, { prm_ids: ids(600), pce_ids: ids(401), customer_category: 'Domestic' }, token),
      400,
      'validation_error',
    );
    expect(tooMany.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([{ code: 'too_many_supply_point_identifiers', attr: 'non_field_errors' }]);
    const tooLong = await expectErrorBody(await api.post(POPULATE, { pce_ids: ids(1_001), customer_category: 'Domestic' }, token), 400, 'validation_error');
    expect(tooLong.errors.map(({ code, attr }) => ({ code, attr }))).toEqual([{ code: 'max_length', attr: 'pce_ids' }]);
    expect((await api.ledger.store.readAll(0, 100_000)).length).toBe(before);
  });

  it('takes the largest batch, 1,000 ids, in one request', async () => {
    const ids = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(6, '0')}`);
    const batchId = await populate({ prm_ids: ids(500, '10000000'), pce_ids: ids(500, 'GI'), customer_category: 'Domestic' });
    const view = await status(batchId);
    expect(view.pending_requests.prm_ids).toHaveLength(500);
    expect(view.pending_requests.pce_ids).toEqual(ids(500, 'GI'));
  });

  it('needs a token, and a JSON body', async () => {
    await expectErrorBody(await api.app.request(POPULATE, { method: 'POST', body: '{}' }), 401, 'not_authenticated');
    await expectErrorBody(await api.post(POPULATE, '{"prm_ids": [', token), 400, 'parse_error');
    await expectErrorBody(await api.post(POPULATE, 'x', token, { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
  });
});

describe('GET supply-point/populate/<batch_id>/', () => {
  it('404 populate_batch_not_found for an unknown batch, and for a key sharing none of the batch\'s suppliers', async () => {
    await expectErrorBody(await api.get(statusPath('00000000-0000-4000-8000-000000000000'), token), 404, 'populate_batch_not_found');
    const batchId = await populate({ prm_ids: ['09111642617347'], customer_category: 'Domestic' });
    await expectErrorBody(await api.get(statusPath(batchId), await accessToken(api, api.otherKey)), 404, 'populate_batch_not_found');
    await expectErrorBody(await api.get(statusPath(batchId).slice(0, -1), token), 404, 'not_found');
    // a key scoped to several suppliers, one of them the batch's, sees it
    const both = await createApiKey(api.ledger, { suppliers: [OTHER_SUPPLIER, SUPPLIER], label: 'both' }, operator);
    expect((await status(batchId, await accessToken(api, both.key))).status).toBe('PENDING');
  });

  it('end to end: the worker calls the operators over HTTP; found, not found, slow, 503 and 429 end as the status shows', async () => {
    const A = '09111642617347'; // found
    const B = '30002851234567'; // not found
    const C = '30002851234568'; // always too slow
    const D = 'GI123456'; // 503, then found
    const E = '21461231498752'; // 429 with Retry-After: 3, then found
    const F = 'GI654321'; // always 503
    fake.script(A, [{ kind: 'found' }]);
    fake.script(B, [{ kind: 'not-found', message: 'PRM inconnu du gestionnaire de réseau' }]);
    fake.script(C, [{ kind: 'slow', delayMs: 5_000 }]);
    fake.script(D, [{ kind: 'status', status: 503 }, { kind: 'found' }]);
    fake.script(E, [{ kind: 'status', status: 429, retryAfter: '3' }, { kind: 'found' }]);
    fake.script(F, [{ kind: 'status', status: 503, body: { message: 'maintenance' } }]);

    const batchId = await populate({ prm_ids: [A, B, C], pce_ids: [D, E, F], customer_category: 'Domestic' });
    // 400 ms: short enough for the slow operator's five attempts, long enough that a loaded machine (two test
    // files at a time on two cores) answering the fast scripts a little late does not turn them into timeouts.
    const operators = {
      ELECTRICITY: createNetworkOperator('ELECTRICITY', { baseUrl: fake.url, timeoutMs: 400, clock: api.ledger.clock }),
      GAS: createNetworkOperator('GAS', { baseUrl: fake.url, timeoutMs: 400, clock: api.ledger.clock }),
    };
    await testWorker(api.ledger, api.clock, operators).drain();

    const final = await status(batchId, await accessToken(api, api.key));
    expect(final).toEqual({
      status: 'COMPLETED',
      imported_requests: { prm_ids: [A], pce_ids: [D, E] },
      pending_requests: { prm_ids: [], pce_ids: [] },
      errored_requests: {
        prms: [
          { id: B, errored_reason: 'PRM inconnu du gestionnaire de réseau' },
          { id: C, errored_reason: expect.stringMatching(/did not answer within 400 ms \(gave up after 5 attempts\)$/) },
        ],
        pces: [{ id: F, errored_reason: expect.stringMatching(/HTTP 503: maintenance \(gave up after 5 attempts\)$/) }],
      },
    });
    expect([A, B, D, E, F].map((id) => fake.hitsFor(id))).toEqual([1, 1, 2, 2, 5]);
    expect(fake.hits.every((hit) => hit.accept === 'application/json' && hit.method === 'GET')).toBe(true);

    // 429 honoured: the second call for E came no sooner than Retry-After said
    const eStream = (await api.ledger.store.readStream(supplyPointPopulateRequestStreamId(batchId, 5))).map((s) => s.event);
    const failedAt = eStream.find((e) => e.type === 'SupplyPointPopulateAttemptFailed')?.data as { failedAt: string } | undefined;
    const secondClaim = eStream.filter((e) => e.type === 'SupplyPointPopulateRequestClaimed')[1]?.data as { claimedAt: string } | undefined;
    expect(Date.parse(secondClaim!.claimedAt) - Date.parse(failedAt!.failedAt)).toBeGreaterThanOrEqual(3_000);

    // the records are stored, the operator's answer kept as given
    const stored = await api.ledger.read.listSupplyPoints();
    expect(stored.map((s) => [s.supplyType, s.identifier])).toEqual([
      ['ELECTRICITY', A],
      ['GAS', E],
      ['GAS', D],
    ]);
    expect(stored[0]).toMatchObject({ customerCategory: 'Domestic', addressCity: 'Lyon', details: supplyPointBody(A) });
  });

  it('IN_PROGRESS while some requests have ended and others are still with the operator', async () => {
    fake.script('09111642617347', [{ kind: 'found' }]);
    const batchId = await populate({ prm_ids: ['09111642617347'], pce_ids: ['GI123456'], customer_category: 'Business' });
    const calls: OperatorCall[] = [];
    const worker = testWorker(api.ledger, api.clock, {
      ELECTRICITY: createNetworkOperator('ELECTRICITY', { baseUrl: fake.url, timeoutMs: 1_000, clock: api.ledger.clock }),
      GAS: scriptedOperator('GAS', api.clock, calls, (_id, _call, signal) => hangUntilAborted(signal)),
    });
    worker.start();
    for (let i = 0; i < 20_000 && (await api.ledger.read.findPopulateBatch(batchId))?.importedCount !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(await status(batchId, await accessToken(api, api.key))).toEqual({
      status: 'IN_PROGRESS',
      imported_requests: { prm_ids: ['09111642617347'], pce_ids: [] },
      pending_requests: { prm_ids: [], pce_ids: ['GI123456'] },
      errored_requests: { prms: [], pces: [] },
    });
    await worker.stop();
    expect((await status(batchId, await accessToken(api, api.key))).status).toBe('IN_PROGRESS');
  });
});
