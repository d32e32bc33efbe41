import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { supplyPointPopulateRequestStreamId, type SupplyPointPopulateRequestEvent } from '../../events/supply-point-populate.js';
import { createNetworkOperator } from '../../src/adapters/network-operators.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/supply-point/retry-policy.js';
import type { PopulateProgress } from '../../src/populate/worker.js';
import { supplyPointBody } from '../support/fake-operator.js';
import { createTestLedger, type TestLedger } from '../support/ledger.js';
import { endsPerRequest, found, newBatch, pce, prm, scriptedOperator, testWorker, type OperatorCall } from './worker-support.js';

describe('populate worker', () => {
  let t: TestLedger;
  let calls: OperatorCall[];
  beforeEach(async () => {
    t = await createTestLedger();
    calls = [];
  });
  afterEach(async () => {
    await t.close();
  });

  const eventsOf = async (batchId: string, sequence: number) =>
    (await t.ledger.store.readStream(supplyPointPopulateRequestStreamId(batchId, sequence))).map(
      (s) => s.event as SupplyPointPopulateRequestEvent,
    );

  it('imports what the operators return and stores the supply points (details kept as given)', async () => {
    const batchId = await newBatch(t.ledger, [prm(1)], [pce(1)], 'Business');
    const worker = testWorker(t.ledger, t.clock, {
      ELECTRICITY: scriptedOperator('ELECTRICITY', t.clock, calls),
      GAS: scriptedOperator('GAS', t.clock, calls),
    });
    await worker.drain();
    expect(calls.map((c) => c.identifier).sort()).toEqual([pce(1), prm(1)].sort());
    expect(await t.ledger.read.findPopulateBatch(batchId)).toMatchObject({ pendingCount: 0, importedCount: 2, erroredCount: 0 });
    const stored = await t.ledger.read.findSupplyPoint('ELECTRICITY', prm(1));
    expect(stored).toMatchObject({
      identifier: prm(1),
      supplyType: 'ELECTRICITY',
      customerCategory: 'Business',
      addressLine1: '12 rue des Lilas',
      addressPostcode: '69003',
      addressCity: 'Lyon',
      importCount: 1,
      lastBatchId: batchId,
    });
    expect(stored?.details).toEqual(supplyPointBody(prm(1)));
    expect((await eventsOf(batchId, 1)).map((e) => e.type)).toEqual(['SupplyPointPopulateRequestClaimed', 'SupplyPointImported']);
  });

  it('retries transient failures with exponential backoff on the (fake) clock, then imports', async () => {
    const batchId = await newBatch(t.ledger, [prm(1)], []);
    const worker = testWorker(t.ledger, t.clock, {
      ELECTRICITY: scriptedOperator('ELECTRICITY', t.clock, calls, (id, call) =>
        call < 3 ? { kind: 'transient', reason: 'HTTP 503', retryAfterMs: null } : found(id),
      ),
      GAS: scriptedOperator('GAS', t.clock, calls),
    });
    await worker.drain();
    const at = calls.map((c) => c.at);
    expect(at).toHaveLength(3);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(1_000);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(2_000);
    const events = await eventsOf(batchId, 1);
    expect(events.map((e) => [e.type, e.data.attempt])).toEqual([
      ['SupplyPointPopulateRequestClaimed', 1],
      ['SupplyPointPopulateAttemptFailed', 1],
      ['SupplyPointPopulateRequestClaimed', 2],
      ['SupplyPointPopulateAttemptFailed', 2],
      ['SupplyPointPopulateRequestClaimed', 3],
      ['SupplyPointImported', 3],
    ]);
  });

  it(`errors a request after ${DEFAULT_RETRY_POLICY.maxAttempts} transient failures, with the last reason`, async () => {
    const batchId = await newBatch(t.ledger, [prm(1)], []);
    const worker = testWorker(t.ledger, t.clock, {
      ELECTRICITY: scriptedOperator('ELECTRICITY', t.clock, calls, () => ({ kind: 'transient', reason: 'HTTP 503', retryAfterMs: null })),
      GAS: scriptedOperator('GAS', t.clock, calls),
    });
    await worker.drain();
    expect(calls).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
    const rows = await t.ledger.read.listPopulateRequests(batchId);
    expect(rows[0]).toMatchObject({ status: 'ERRORED', erroredReason: `HTTP 503 (gave up after ${DEFAULT_RETRY_POLICY.maxAttempts} attempts)` });
  });

  it('errors at once when the operator refuses (one call, the operator\'s reason)', async () => {
    const batchId = await newBatch(t.ledger, [], [pce(7)]);
    const worker = testWorker(t.ledger, t.clock, {
      ELECTRICITY: scriptedOperator('ELECTRICITY', t.clock, calls),
      GAS: scriptedOperator('GAS', t.clock, calls, () => ({ kind: 'refused', reason: 'PCE inconnu du GRD' })),
    });
    await worker.drain();
    expect(calls).toHaveLength(1);
    expect((await t.ledger.read.listPopulateRequests(batchId))[0]).toMatchObject({ status: 'ERRORED', erroredReason: 'PCE inconnu du GRD', attempt: 1 });
  });

  it('honours Retry-After: nothing goes to that operator before the time it named', async () => {
    await newBatch(t.ledger, [prm(1), prm(2)], [pce(1), pce(2)]);
    const worker = testWorker(
      t.ledger,
      t.clock,
      {
        ELECTRICITY: scriptedOperator('ELECTRICITY', t.clock, calls, (id, call) =>
          id === prm(1) && call === 1 ? { kind: 'transient', reason: 'HTTP 429', retryAfterMs: 20_000 } : found(id),
        ),
        GAS: scriptedOperator('GAS', t.clock, calls),
      },
      { maxInFlightPerOperator: 1 },
    );
    const start = t.clock.now.getTime();
    await worker.drain();
    const electricity = calls.filter((c) => c.supplyType === 'ELECTRICITY');
    expect(electricity.map((c) => c.identifier)).toEqual([prm(1), prm(2), prm(1)]);
    expect(electricity[1]!.at - start).toBeGreaterThanOrEqual(20_000);
    expect(electricity[2]!.at - start).toBeGreaterThanOrEqual(20_000);
    expect(calls.filter((c) => c.supplyType === 'GAS').map((c) => c.identifier)).toEqual([pce(1), pce(2)]);
  });

  it('errors every request for an operator that is not configured, without calling anything', async () => {
    const batchId = await newBatch(t.ledger, [prm(1)], [pce(1), pce(2)]);
    const progress: PopulateProgress[] = [];
    const worker = testWorker(
      t.ledger,
      t.clock,
      {
        ELECTRICITY: scriptedOperator('ELECTRICITY', t.clock, calls),
        GAS: createNetworkOperator('GAS', { baseUrl: undefined, timeoutMs: 100, clock: t.ledger.clock }),
      },
      {},
      (p) => progress.push(p),
    );
    await worker.drain();
    const rows = await t.ledger.read.listPopulateRequests(batchId);
    expect(rows.map((r) => [r.identifier, r.status])).toEqual([
      [prm(1), 'IMPORTED'],
      [pce(1), 'ERRORED'],
      [pce(2), 'ERRORED'],
    ]);
    expect(rows[1]?.erroredReason).toMatch(/LEDGER_GAS_OPERATOR_URL/);
    expect(calls.map((c) => c.supplyType)).toEqual(['ELECTRICITY']);
    expect(progress.filter((p) => p.kind === 'errored')).toHaveLength(2);
  });

  it('refreshes a supply point imported again instead of duplicating it', async () => {
    const first = await newBatch(t.ledger, [prm(1)], []);
    let city = 'Lyon';
    const operators = {
      ELECTRICITY: scriptedOperator('ELECTRICITY', t.clock, calls, (id) => {
        const answer = found(id);
        return answer.kind === 'found'
          ? { kind: 'found', supplyPoint: { ...answer.supplyPoint, address: { ...answer.supplyPoint.address, city } } }
          : answer;
      }),
      GAS: scriptedOperator('GAS', t.clock, calls),
    };
    await testWorker(t.ledger, t.clock, operators).drain();
    const firstImportedAt = (await t.ledger.read.findSupplyPoint('ELECTRICITY', prm(1)))?.firstImportedAt;
    t.clock.advanceSeconds(3600);
    city = 'Villeurbanne';
    const second = await newBatch(t.ledger, [prm(1)], [], 'Business');
    await testWorker(t.ledger, t.clock, operators).drain();
    const all = await t.ledger.read.listSupplyPoints();
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      addressCity: 'Villeurbanne',
      customerCategory: 'Business',
      importCount: 2,
      lastBatchId: second,
      firstImportedAt,
    });
    expect(first).not.toBe(second);
  });

  it('runs in the background (serve mode) until stopped, picking up batches created while it runs', async () => {
    const worker = testWorker(t.ledger, t.clock, {
      ELECTRICITY: scriptedOperator('ELECTRICITY', t.clock, calls),
      GAS: scriptedOperator('GAS', t.clock, calls),
    });
    worker.start();
    const batchId = await newBatch(t.ledger, [prm(1), prm(2)], [pce(1)]);
    for (let i = 0; i < 10_000 && (await t.ledger.read.findPopulateBatch(batchId))?.pendingCount !== 0; i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    await worker.stop();
    expect(await t.ledger.read.findPopulateBatch(batchId)).toMatchObject({ pendingCount: 0, importedCount: 3 });
    for (const [, ends] of await endsPerRequest(t.ledger)) expect(ends).toHaveLength(1);
  });
});
