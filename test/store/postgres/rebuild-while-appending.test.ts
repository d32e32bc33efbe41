import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getTableName } from 'drizzle-orm';
import { inlineProjections } from '../../../projections/index.js';
import { stageAccount } from '../../../src/application/account-import-processes.js';
import type { Ledger } from '../../../src/ledger.js';
import type { RebuildSummary } from '../../../src/store/projection-maintenance.js';
import { operator } from '../../support/ledger.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { payloadFor, seedAccounts } from '../contract/seed.js';
import {
  expectOnlyDomainErrors,
  expectProjectionsVerify,
  expectWellFormedLog,
  openInstances,
  SERIAL_SUPPLIER_ERRORS,
  settle,
  supplierHandle,
  tick,
  type Instances,
} from './instances.js';

/** The projection tables' columns, indexes and constraints as the catalog describes them: a swap must leave them as they were. */
async function projectionSchema(t: Instances): Promise<string[]> {
  const tables = inlineProjections.map((p) => getTableName(p.table));
  const columns = await t.sql<{ d: string }>(
    `SELECT format('%s.%s %s %s %s', table_name, column_name, data_type, is_nullable, coalesce(column_default, '')) AS d
       FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ANY($1)`,
    [tables],
  );
  const indexes = await t.sql<{ d: string }>(`SELECT indexdef AS d FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ANY($1)`, [tables]);
  const constraints = await t.sql<{ d: string }>(
    `SELECT format('%s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) AS d FROM pg_constraint WHERE conrelid::regclass::text = ANY($1)`,
    [tables],
  );
  return [...columns, ...indexes, ...constraints].map((r) => r.d).sort();
}

/**
 * A rebuild replays a snapshot into scratch tables while every instance keeps
 * writing, then catches up and swaps under the writers' lock: nothing
 * appended meanwhile is lost, the swapped-in tables serve reads and take the
 * next writes, and two rebuilds at once take turns on the rebuild lock.
 */
describe('PostgreSQL: rebuild while another instance appends', () => {
  if (skipWithoutPostgres()) return;
  let t: Instances;
  beforeEach(async () => {
    // Small replay batches: the rebuild flushes many times, the writers get in between.
    t = await openInstances({ rebuildBatchSize: 25 });
    await seedAccounts(t.a, 12);
  });
  afterEach(() => t.close());

  /**
   * Writes from both instances (suppliers created and paused/resumed, accounts
   * staged) and reads from the read models, a few in flight at a time, until
   * `stop()` says so (and at least `minimum` commands); returns every outcome.
   */
  function keepWriting(stop: () => boolean, minimum = 20) {
    const writes: Promise<PromiseSettledResult<unknown>>[] = [];
    const reads: Promise<PromiseSettledResult<unknown>>[] = [];
    const done = (async () => {
      for (let i = 0; i < 2_000 && (i < minimum || !stop()); i++) {
        const ledger: Ledger = i % 2 === 0 ? t.a : t.b;
        const code = `W-${i}`;
        const wave = [
          settle(supplierHandle(ledger, 'create', code)),
          settle(supplierHandle(i % 2 === 0 ? t.b : t.a, 'pause', code)),
          settle(stageAccount(ledger, payloadFor(`W-${i}`, 'WEB'), operator)),
        ];
        writes.push(...wave);
        reads.push(settle(ledger.read.listImportSuppliers()), settle(ledger.read.findAccountImportProcess('LEGACY_ENERGIE', 'ACC-1')));
        await Promise.all(wave);
        await tick();
      }
    })();
    return { done, writes, reads };
  }

  async function expectAllServed(work: ReturnType<typeof keepWriting>) {
    await work.done;
    expectOnlyDomainErrors(await Promise.all(work.writes), SERIAL_SUPPLIER_ERRORS);
    expectOnlyDomainErrors(await Promise.all(work.reads), new Set());
  }

  it('the rebuild on one instance while both append: verify finds nothing, the rebuilt tables serve reads and new writes', async () => {
    let rebuilt = false;
    const schema = await projectionSchema(t);
    expect(schema.length).toBeGreaterThan(100);
    const before = await t.a.log.lastPosition();
    const work = keepWriting(() => rebuilt);
    // Once the rebuild has its snapshot, more writes arrive: they must be caught up at the swap (or land in the new tables).
    const late: Promise<PromiseSettledResult<unknown>>[] = [];
    const summary = await t.a.projections.rebuild(inlineProjections, {
      onProgress: ({ eventsRead }) => {
        if (eventsRead > 0 && late.length === 0) for (let i = 0; i < 10; i++) late.push(settle(supplierHandle(t.b, 'create', `LATE-${i}`)));
      },
    });
    rebuilt = true;
    await expectAllServed(work);
    expectOnlyDomainErrors(await Promise.all(late), new Set());
    expect(late).toHaveLength(10);
    expect(summary.projections).toEqual(inlineProjections.map((p) => p.name));
    expect(await t.a.log.lastPosition()).toBeGreaterThan(before);

    await expectWellFormedLog(t);
    await expectProjectionsVerify(t.b);
    // The same columns, primary keys and (unique) indexes, under the same names.
    expect(await projectionSchema(t)).toEqual(schema);
    // Every projection is recorded as rebuilt, through a position of the log.
    const versions = await t.sql<{ name: string; through: number }>('SELECT name, rebuilt_through::int AS through FROM projection_versions');
    expect(versions.map((v) => v.name).sort()).toEqual(inlineProjections.map((p) => p.name).sort());
    for (const v of versions) expect(v.through).toBeGreaterThanOrEqual(before);

    // The swapped-in tables serve both instances' reads and take their next writes.
    for (const [ledger, other] of [
      [t.a, t.b],
      [t.b, t.a],
    ] as const) {
      const code = ledger === t.a ? 'AFTER-A' : 'AFTER-B';
      await supplierHandle(ledger, 'create', code);
      await supplierHandle(other, 'pause', code);
      expect(await other.read.findImportSupplier(code)).toMatchObject({ status: 'Paused', streamVersion: 2 });
      expect(await ledger.read.findImportSupplier('LATE-9')).toMatchObject({ status: 'Ongoing' });
      expect((await ledger.read.listImportSuppliers()).length).toBe((await t.sql('SELECT DISTINCT stream_id FROM events WHERE stream_id LIKE $1', ['import-supplier:%'])).length);
    }
    await stageAccount(t.b, payloadFor('AFTER', 'WEB'), operator);
    expect(await t.a.read.findAccountImportProcess('LEGACY_ENERGIE', 'AFTER')).toMatchObject({ state: 'STAGED' });
    await expectProjectionsVerify(t.a);
  });

  it('two rebuilds at once, one from each instance, while both append: both succeed (taking turns), verify finds nothing', async () => {
    let finished = 0;
    const schema = await projectionSchema(t);
    const work = keepWriting(() => finished === 2);
    const rebuild = (ledger: Ledger) =>
      settle(ledger.projections.rebuild(inlineProjections)).then((outcome) => {
        finished++;
        return outcome;
      });
    const outcomes = await Promise.all([rebuild(t.a), rebuild(t.b)]);
    await expectAllServed(work);
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).toEqual(['ok', 'ok']);
    for (const outcome of outcomes) expect((outcome as PromiseFulfilledResult<RebuildSummary>).value.rowsWritten).toBeGreaterThan(0);
    // No scratch table is left behind.
    expect(await t.sql("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE '%\\_\\_rebuild'")).toEqual([]);
    await expectWellFormedLog(t);
    await expectProjectionsVerify(t.a);
    expect(await projectionSchema(t)).toEqual(schema);
    await supplierHandle(t.b, 'create', 'AFTER-BOTH');
    expect(await t.a.read.findImportSupplier('AFTER-BOTH')).toMatchObject({ status: 'Ongoing' });
  });
});
