import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgGroupCommitRunner } from '../../../src/store/postgres/pg-group-commit.js';
import { createTestDatabase, executeOn, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.js';

/**
 * The runner's deferred statements (a unit's projection writes, sent and awaited with its RELEASE): a unit
 * whose deferred statement fails is rolled back alone, with that failure as its error, and the units of
 * the same batch before and after it commit.
 */
describe('PgGroupCommitRunner: deferred statements', () => {
  if (skipWithoutPostgres()) return;
  let database: TestDatabase;
  let runner: PgGroupCommitRunner;
  beforeAll(async () => {
    database = await createTestDatabase();
    await executeOn(database.url, 'CREATE TABLE deferred_probe (n int PRIMARY KEY)');
    runner = new PgGroupCommitRunner(database.url);
  });
  afterAll(async () => {
    await runner.close();
    await executeOn(database.url, 'DROP TABLE deferred_probe');
    await database.drop();
  });

  it('a failing deferred statement rolls back its unit alone and is the error reported', async () => {
    const insert = (n: number) =>
      runner.run(async (tx) => {
        await tx.client.query('INSERT INTO deferred_probe VALUES ($1)', [n]);
        // Deferred: n = 2 fails on the primary key (1 is taken by then), after the unit's awaited insert.
        tx.defer(tx.client.query('INSERT INTO deferred_probe VALUES ($1)', [n === 2 ? 1 : n + 100]));
        // Sent after the failing one: refused as the transaction is aborted, not the error to report.
        tx.defer(tx.client.query('SELECT 1'));
        return n;
      });
    // One batch: the three units are queued in the same tick.
    const outcomes = await Promise.allSettled([insert(1), insert(2), insert(3)]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 1 });
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: 3 });
    expect(outcomes[1]?.status).toBe('rejected');
    expect(((outcomes[1] as PromiseRejectedResult).reason as { code?: string }).code).toBe('23505');
    const rows = await executeOn(database.url, 'SELECT n FROM deferred_probe ORDER BY n');
    expect(rows.map((row) => row['n'])).toEqual([1, 3, 101, 103]);
  });
});
