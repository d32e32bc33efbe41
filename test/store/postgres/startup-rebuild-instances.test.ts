import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../projections/index.js';
import { createImportSupplier } from '../../../src/application/operator.js';
import { openLedger, type Ledger } from '../../../src/ledger.js';
import { operator, TestClock } from '../../support/ledger.js';
import { createTestDatabase, executeOn, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.js';

/** Instances starting together on a database whose projections are stale: one rebuilds, the others find nothing left. */
describe('stale projections at start-up, several instances', () => {
  if (skipWithoutPostgres()) return;
  let database: TestDatabase;
  const ledgers: Ledger[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    const clock = new TestClock();
    for (let i = 0; i < 3; i++) ledgers.push(await openLedger({ postgresUrl: database.url }, { clock: clock.read }));
  });
  afterAll(async () => {
    for (const ledger of ledgers) await ledger.close();
    await database.drop();
  });

  it('exactly one of three instances rebuilds; afterwards nothing is stale and the tables equal a rebuild', async () => {
    const [first] = ledgers;
    for (let i = 0; i < 20; i++) await createImportSupplier(first!, { code: `S${i}`, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    await first!.projections.stale(inlineProjections); // records every projection as current
    await executeOn(database.url, "UPDATE projection_versions SET version = 0 WHERE name = 'import_suppliers'");
    await executeOn(database.url, 'DELETE FROM import_suppliers');
    const heard: string[][] = [];
    const summaries = await Promise.all(
      ledgers.map((ledger) => ledger.projections.rebuildStale(inlineProjections, { onStale: (stale) => heard.push(stale.map((p) => p.name)) })),
    );
    expect(summaries.filter((s) => s !== null)).toHaveLength(1);
    expect(heard).toEqual([['import_suppliers']]);
    expect(await first!.projections.stale(inlineProjections)).toEqual([]);
    expect((await ledgers[2]!.read.listImportSuppliers()).length).toBe(20);
    expect((await first!.projections.verify(inlineProjections)).differences).toEqual([]);
  });
});
