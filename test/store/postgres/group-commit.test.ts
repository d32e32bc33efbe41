import { randomUUID } from 'node:crypto';
import { integer, sqliteTable } from 'drizzle-orm/sqlite-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../../events/registry.js';
import type { AnyRowProjection, StoredLedgerEvent } from '../../../projections/projection.js';
import { PgGroupCommitRunner, type BatchReport } from '../../../src/store/postgres/pg-group-commit.js';
import { postgresTransaction, type BatchView } from '../../../src/store/postgres/pg-write-unit.js';
import { createTestDatabase, executeOn, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.js';

/**
 * The runner's deferred statements (a hook's statements sent and not awaited, as the Idempotency-Key checks
 * are): a unit whose deferred statement fails is rolled back alone, with that failure as its error, and the
 * units of the same batch before and after it commit (the batch is redone unit by unit, each unit's deferred
 * statements awaited with its RELEASE).
 */
describe('PgGroupCommitRunner: deferred statements', () => {
  if (skipWithoutPostgres()) return;
  let database: TestDatabase;
  let runner: PgGroupCommitRunner;
  const reports: BatchReport[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    await executeOn(database.url, 'CREATE TABLE deferred_probe (n int PRIMARY KEY)');
    runner = new PgGroupCommitRunner(database.url, { onBatch: (report) => reports.push(report) });
  });
  afterAll(async () => {
    await runner.close();
    await executeOn(database.url, 'DROP TABLE deferred_probe');
    await database.drop();
  });

  it('a failing deferred statement rolls back its unit alone and is the error reported', async () => {
    const insert = (n: number) =>
      runner.run({
        streams: [],
        versions: [],
        plan: () => ({
          value: n,
          beforeCommit: async (_appended, hookTx) => {
            const tx = postgresTransaction(hookTx);
            await tx.client.query('INSERT INTO deferred_probe VALUES ($1)', [n]);
            // Deferred: n = 2 fails on the primary key (1 is taken by then), after the unit's awaited insert.
            tx.defer(tx.client.query('INSERT INTO deferred_probe VALUES ($1)', [n === 2 ? 1 : n + 100]));
            // Sent after the failing one: refused as the transaction is aborted, not the error to report.
            tx.defer(tx.client.query('SELECT 1'));
          },
        }),
      });
    // One batch: the three units are queued in the same tick.
    const outcomes = await Promise.allSettled([insert(1), insert(2), insert(3)]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 1 });
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: 3 });
    expect(outcomes[1]?.status).toBe('rejected');
    expect(((outcomes[1] as PromiseRejectedResult).reason as { code?: string }).code).toBe('23505');
    const rows = await executeOn(database.url, 'SELECT n FROM deferred_probe ORDER BY n');
    expect(rows.map((row) => row['n'])).toEqual([1, 3, 101, 103]);
    expect(reports.map(({ units, path }) => ({ units, path }))).toEqual([{ units: 3, path: 'redone' }]);
  });
});

/**
 * The rows a pipelined batch touches are guessed (each unit planned ahead on empty streams) and read in the
 * flight of its streams: a good guess saves a flight under the writers' lock, a wrong one costs the flight
 * that loads what it missed, and a guessed load PostgreSQL refuses has the batch redone unit by unit. Either
 * way the rows written are those of the real decision, read under the lock.
 */
const sequenceOf = (stored: StoredLedgerEvent): unknown => (stored.event.type === 'SupplyPointPopulateRequestReleased' ? stored.event.data.sequence : null);

describe('PgGroupCommitRunner: guessed projection rows', () => {
  if (skipWithoutPostgres()) return;
  let database: TestDatabase;
  let runner: PgGroupCommitRunner;
  const reports: BatchReport[] = [];
  // A row per `n` (carried as a released populate request's `sequence`), counting the events that named it.
  // The guess (empty stream) names n = the unit's `guess`.
  const table = sqliteTable('guess_probe', { n: integer('n').primaryKey(), hits: integer('hits').notNull() });
  const projection: AnyRowProjection = {
    name: 'guess_probe',
    version: 1,
    table,
    handles: ['SupplyPointPopulateRequestReleased'],
    keyOf: (stored: StoredLedgerEvent) => ({ n: sequenceOf(stored) }),
    evolve: (row: { n: number; hits: number } | null, stored: StoredLedgerEvent) => ({ n: sequenceOf(stored), hits: (row?.hits ?? 0) + 1 }),
  };
  beforeAll(async () => {
    database = await createTestDatabase();
    await executeOn(database.url, 'CREATE TABLE guess_probe (n int PRIMARY KEY, hits int NOT NULL)');
    runner = new PgGroupCommitRunner(database.url, { inline: [projection], onBatch: (report) => reports.push(report) });
  });
  afterAll(async () => {
    await runner.close();
    await executeOn(database.url, 'DROP TABLE guess_probe');
    await database.drop();
  });

  const released = (n: unknown) =>
    ({
      type: 'SupplyPointPopulateRequestReleased',
      version: 1,
      data: { attempt: 1, reason: 'r', releasedAt: new Date(0).toISOString(), batchId: 'b', sequence: n, supplyType: 'GAS', identifier: 'i' },
    }) as unknown as LedgerEvent;

  /** Appends one event to `stream`: n = `guess` when the stream it sees is empty (as the guess always does), else `n`. */
  const probe = (stream: string, n: number, guess: unknown = n): Promise<number> => {
    const plan = (view: BatchView) => {
      const version = view.version(stream);
      const event = released(view.history(stream).length === 0 ? guess : n);
      view.append([
        { globalPosition: view.last + 1, streamId: stream, streamPosition: version + 1, event, metadata: { eventId: randomUUID(), actor: 't', requestId: null, correlationId: null, causationId: null }, recordedAt: new Date(0).toISOString() },
      ]);
      return { value: version + 1 };
    };
    return runner.run({ streams: [stream], versions: [], plan });
  };
  const hits = async () => Object.fromEntries((await executeOn(database.url, 'SELECT n, hits FROM guess_probe ORDER BY n')).map((row) => [row['n'], row['hits']]));

  it('new streams: every row is read with the streams, none after deciding', async () => {
    reports.length = 0;
    expect(await Promise.all([probe('g-1', 1), probe('g-2', 2), probe('g-3', 1)])).toEqual([1, 1, 1]);
    expect(reports.map(({ units, path, rows }) => ({ units, path, rows }))).toEqual([{ units: 3, path: 'pipelined', rows: { guessed: 2, missed: 0 } }]);
    expect(await hits()).toEqual({ 1: 2, 2: 1 });
  });

  it('a wrong guess loads the rows it missed, and the rows written are the real decision`s', async () => {
    reports.length = 0;
    // g-1 has an event: the real decision names n = 7, the guess (empty stream) n = 1, whose row exists.
    expect(await Promise.all([probe('g-1', 7, 1), probe('g-4', 2)])).toEqual([2, 1]);
    expect(reports.map(({ path, rows }) => ({ path, rows }))).toEqual([{ path: 'pipelined', rows: { guessed: 2, missed: 1 } }]);
    expect(await hits()).toEqual({ 1: 2, 2: 2, 7: 1 });
  });

  it('a stream read before the command was queued (as process reads its account) is what its guess is planned on', async () => {
    reports.length = 0;
    // g-3 has one event; its real decision names n = 8, which an empty stream would not.
    const [read] = (await executeOn(database.url, "SELECT count(*)::int AS n FROM events WHERE stream_id = 'g-3'")) as { n: number }[];
    expect(read!.n).toBe(1);
    runner.readAhead.remember('g-3', [
      { globalPosition: 3, streamId: 'g-3', streamPosition: 1, event: released(1), metadata: { eventId: 'e', actor: 't', requestId: null, correlationId: null, causationId: null }, recordedAt: new Date(0).toISOString() },
    ]);
    expect(await probe('g-3', 8, 1)).toBe(2);
    expect(reports.map(({ path, rows }) => ({ path, rows }))).toEqual([{ path: 'pipelined', rows: { guessed: 1, missed: 0 } }]);
    expect((await hits())[8]).toBe(1);
  });

  it('a guessed row PostgreSQL refuses to read has the batch redone unit by unit: the units succeed', async () => {
    reports.length = 0;
    // g-2 has an event, so its real n is 9; its guess ('x') is no integer, and the guessed load fails.
    expect(await Promise.all([probe('g-2', 9, 'x'), probe('g-5', 3)])).toEqual([2, 1]);
    expect(reports.map(({ units, path }) => ({ units, path }))).toEqual([{ units: 2, path: 'redone' }]);
    expect(await hits()).toEqual({ 1: 2, 2: 2, 3: 1, 7: 1, 8: 1, 9: 1 });
  });
});
