import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../projections/index.js';
import { createImportSupplier, setServiceConfig } from '../../../src/application/operator.js';
import { openLedger, type Ledger } from '../../../src/ledger.js';
import { operator, SUPPLIER, TestClock } from '../../support/ledger.js';
import { createTestDatabase, executeOn, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.js';
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
  const sql = <R extends Record<string, unknown>>(text: string) => executeOn(database.url, text) as Promise<R[]>;
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

  it('populate-rate-per-second holds for the cluster: two workers together take at most N starts in any second', async () => {
    await setServiceConfig(a, 'populate-rate-per-second', 3, operator);
    const ids = Array.from({ length: 24 }, (_, i) => 500 + i);
    await newBatch(b, ids.map(prm), []);
    const calls: OperatorCall[] = [];
    const operators = { ELECTRICITY: scriptedOperator('ELECTRICITY', clock, calls), GAS: scriptedOperator('GAS', clock, calls) };
    // Every start the cluster's window took, as PostgreSQL recorded it (a change of its starts, under its row lock, with
    // the clock of the instance that took it). The calls' own times are no measure here: the test clock is
    // moved by whichever worker sleeps, also while the other is between its start and its call.
    await sql(`CREATE TABLE window_starts_seen (name text, at_ms bigint)`);
    await sql(`CREATE FUNCTION window_start_seen() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                 IF NEW.starts_ms <> OLD.starts_ms THEN
                   INSERT INTO window_starts_seen VALUES (NEW.name, (NEW.starts_ms::json ->> (json_array_length(NEW.starts_ms::json) - 1))::bigint);
                 END IF;
                 RETURN NEW;
               END $$`);
    await sql(`CREATE TRIGGER window_start_seen AFTER UPDATE ON rate_limit_windows FOR EACH ROW EXECUTE FUNCTION window_start_seen()`);
    try {
      const t0 = clock.now.getTime();
      await Promise.all([testWorker(a, clock, operators).drain(), testWorker(b, clock, operators).drain()]);
      expect(calls).toHaveLength(24);
      expect(new Set(calls.map((call) => call.identifier)).size).toBe(24);
      const seen = await sql<{ at_ms: number }>(`SELECT at_ms FROM window_starts_seen WHERE name = 'populate:ELECTRICITY' ORDER BY at_ms`);
      const starts = seen.map((row) => Number(row.at_ms) - t0);
      // One start a call (a start whose request the other instance claimed first went to the next one).
      expect(starts.length).toBeGreaterThanOrEqual(24);
      // Per instance the two workers would have taken 6 starts a second; together they take 3.
      for (let i = 0; i + 3 < starts.length; i++) expect(starts[i + 3]! - starts[i]!).toBeGreaterThanOrEqual(1_000);
      expect(Math.max(...starts.map((t) => starts.filter((u) => u >= t && u < t + 1_000).length))).toBe(3);
    } finally {
      await sql('DROP TABLE window_starts_seen');
      await sql('DROP TRIGGER window_start_seen ON rate_limit_windows');
      await sql('DROP FUNCTION window_start_seen()');
    }
  });
});
