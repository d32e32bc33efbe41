import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../projections/index.js';
import { createImportSupplier, setServiceConfig } from '../../../src/application/operator.js';
import { openLedger, type Ledger } from '../../../src/ledger.js';
import { operator, SUPPLIER, TestClock } from '../../support/ledger.js';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.js';
import { endsPerRequest, newBatch, pce, prm, scriptedOperator, testWorker, type OperatorCall } from '../../worker/worker-support.js';

/**
 * The supply point worker running on two instances of the service, on one PostgreSQL database, against one
 * operator: every request is fetched by one instance at a time (its claim is a command decided under the
 * writers' lock) and ends exactly once; a success is never fetched again.
 */
describe('populate worker on two instances', () => {
  if (skipWithoutPostgres()) return;
  let database: TestDatabase;
  let a: Ledger;
  let b: Ledger;
  const clock = new TestClock();
  beforeAll(async () => {
    database = await createTestDatabase();
    a = await openLedger({ postgresUrl: database.url }, { clock: clock.read });
    b = await openLedger({ postgresUrl: database.url }, { clock: clock.read });
    await createImportSupplier(a, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await database.drop();
  });

  it('two workers drain one queue: each request is fetched once, imported once, and the projections equal a rebuild', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => i + 1);
    const batches = [await newBatch(a, ids.map(prm), ids.map(pce)), await newBatch(b, ids.slice(0, 10).map(prm), [])];
    const calls: OperatorCall[] = [];
    // One operator (one list of calls) behind both instances.
    const operators = { ELECTRICITY: scriptedOperator('ELECTRICITY', clock, calls), GAS: scriptedOperator('GAS', clock, calls) };
    await Promise.all([testWorker(a, clock, operators).drain(), testWorker(b, clock, operators).drain()]);

    // 70 requests (the second batch names 10 PRMs of the first again: each request is its own fetch).
    expect(calls).toHaveLength(70);
    const ends = await endsPerRequest(a);
    expect(ends.size).toBe(70);
    for (const [stream, endings] of ends) expect({ stream, endings }).toEqual({ stream, endings: ['SupplyPointImported'] });
    for (const batchId of batches) expect(await b.read.findPopulateBatch(batchId)).toMatchObject({ pendingCount: 0, erroredCount: 0 });
    // A supply point named by both batches was imported twice, once per batch, and counted twice (no lost update).
    expect(await a.read.findSupplyPoint('ELECTRICITY', prm(1))).toMatchObject({ importCount: 2 });
    expect(await a.read.findSupplyPoint('ELECTRICITY', prm(20))).toMatchObject({ importCount: 1 });
    expect((await a.projections.verify(inlineProjections)).differences).toEqual([]);
    // Nothing left: another round fetches nothing.
    await Promise.all([testWorker(a, clock, operators).drain(), testWorker(b, clock, operators).drain()]);
    expect(calls).toHaveLength(70);
  });

  it('populate-rate-per-second holds for the cluster: two workers together start at most N calls to an operator in any second', async () => {
    await setServiceConfig(a, 'populate-rate-per-second', 3, operator);
    const ids = Array.from({ length: 24 }, (_, i) => 500 + i);
    await newBatch(b, ids.map(prm), []);
    const calls: OperatorCall[] = [];
    const operators = { ELECTRICITY: scriptedOperator('ELECTRICITY', clock, calls), GAS: scriptedOperator('GAS', clock, calls) };
    const t0 = clock.now.getTime();
    await Promise.all([testWorker(a, clock, operators).drain(), testWorker(b, clock, operators).drain()]);
    const times = calls.map((call) => call.at - t0).sort((x, y) => x - y);
    expect(times).toHaveLength(24);
    // Per instance the two workers would have made 6 calls a second; together they make 3.
    for (let i = 0; i + 3 < times.length; i++) expect(times[i + 3]! - times[i]!).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1_000).length))).toBe(3);
    expect(new Set(calls.map((call) => call.identifier)).size).toBe(24);
    // And not much slower: a slot whose request the other instance claimed first goes to the next request.
    expect(Math.max(...times)).toBeLessThanOrEqual(9_000);
  });
});
