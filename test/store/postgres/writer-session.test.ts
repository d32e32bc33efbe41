import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importSupplierStreamId } from '../../../events/import-supplier.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { newClient, newWriterClient } from '../../../src/store/postgres/pg-database.js';
import { PgGroupCommitRunner } from '../../../src/store/postgres/pg-group-commit.js';
import { postgresTransaction, READ_STREAMS } from '../../../src/store/postgres/pg-write-unit.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { metadata, openInstances, type Instances } from './instances.js';

type Session = { query: (text: string) => Promise<{ rows: Record<string, unknown>[] }> };

const FIVE_STREAMS = `ARRAY['s-1', 's-2', 's-3', 's-4', 's-5']`;

/** Prepares a batch's stream read on `session` and runs it as the writer does, over and over (PostgreSQL then keeps one plan for it). */
async function prepareStreamRead(session: Session): Promise<void> {
  await session.query(`PREPARE stream_read(text[]) AS ${READ_STREAMS}`);
  for (let i = 0; i < 10; i++) await session.query(`EXECUTE stream_read(${FIVE_STREAMS})`);
}

/** The plan `session` runs its prepared stream read with (EXPLAIN, as JSON text). */
async function streamReadPlan(session: Session): Promise<string> {
  const { rows } = await session.query(`EXPLAIN (FORMAT JSON) EXECUTE stream_read(${FIVE_STREAMS})`);
  return JSON.stringify(rows[0]);
}

/**
 * The writer's connection runs what every instance waits for (the writers' lock is held meanwhile): its
 * session keeps the planner off whole-table scans and, as every connection of the ledger, off parallel
 * workers, runs each statement on the one plan it made for it, and compresses with lz4 where the server has it.
 */
describe('PostgreSQL: the writer connection', () => {
  if (skipWithoutPostgres()) return;
  let t: Instances;
  beforeEach(async () => {
    t = await openInstances();
  });
  afterEach(() => t.close());

  it('reads a batch\'s streams by the index after the log grew under a plan made when it was small (a plain session scans it all)', async () => {
    const plain = await newClient(t.url);
    const writer = await newWriterClient(t.url);
    try {
      // A new database: the statement is planned (and the plan kept) while the log holds a few events...
      await t.sql(
        `INSERT INTO events (global_position, stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at)
           VALUES (1, 's-0', 1, 'ImportSupplierCreated', 1, '{}', '{}', 'e-1', '2026-01-01T00:00:00.000Z')`,
      );
      await prepareStreamRead(plain);
      await prepareStreamRead(writer);
      // ...then 3,000 events of an account's size come in before PostgreSQL analyzes the table again.
      await t.sql(
        `INSERT INTO events (global_position, stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at)
           SELECT g, 's-' || (g % 600), g / 600 + 1, 'ImportSupplierCreated', 1, repeat(md5(g::text), 50), '{}', 'e-' || g, '2026-01-01T00:00:00.000Z'
             FROM generate_series(2, 3001) AS g`,
      );
      // The condition the setting is for: the plain session still scans the whole log for five streams.
      expect(await streamReadPlan(plain)).toContain('Seq Scan');
      const plan = await streamReadPlan(writer);
      expect(plan).not.toContain('Seq Scan');
      expect(plan).toContain('Index');
    } finally {
      await plain.end();
      await writer.end();
    }
  });

  it("starts no parallel workers on any of the ledger's connections (a plain session plans them for a few streams of a log it has no statistics of)", async () => {
    const plain = new pg.Client({ connectionString: t.url });
    await plain.connect();
    const ledger = await newClient(t.url);
    const writer = await newWriterClient(t.url);
    try {
      await t.sql(
        `INSERT INTO events (global_position, stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at)
           SELECT g, 's-' || (g % 600), g / 600 + 1, 'ImportSupplierCreated', 1, repeat(md5(g::text), 50), '{}', 'e-' || g, '2026-01-01T00:00:00.000Z'
             FROM generate_series(1, 3000) AS g`,
      );
      // Workers made as cheap as on a log of a million accounts the planner has no statistics of.
      const cheapWorkers = ['parallel_setup_cost = 0', 'parallel_tuple_cost = 0', 'min_parallel_table_scan_size = 0', 'min_parallel_index_scan_size = 0'];
      const plans: Record<string, string> = {};
      for (const [name, session] of Object.entries({ plain, ledger, writer })) {
        for (const setting of cheapWorkers) await session.query(`SET ${setting}`);
        await prepareStreamRead(session);
        plans[name] = await streamReadPlan(session);
      }
      expect(plans['plain']).toContain('Gather');
      expect(plans['ledger']).not.toContain('Gather');
      expect(plans['writer']).not.toContain('Gather');
    } finally {
      await plain.end();
      await ledger.end();
      await writer.end();
    }
  });

  it('stores a large event\'s data compressed with lz4 where the server was built with it, and reads it back the same', async () => {
    const [support] = await t.sql<{ lz4: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)) AS lz4`,
    );
    const documentRoot = `/${'large/'.repeat(2_000)}`;
    const event = {
      type: 'ImportSupplierCreated',
      version: 1,
      data: { status: 'Ongoing', code: 'LZ4', documentRoot, sendEmails: false, createdAt: '2026-01-01T00:00:00.000Z' },
    } as LedgerEvent;
    await t.a.store.appendToStream(importSupplierStreamId('LZ4'), 0, [event], { metadata });
    const [row] = await t.sql<{ compression: string | null; data: string }>(
      `SELECT pg_column_compression(data) AS compression, data FROM events WHERE stream_id = $1`,
      [importSupplierStreamId('LZ4')],
    );
    expect(row!.compression).toBe(support!.lz4 ? 'lz4' : 'pglz');
    expect(JSON.parse(row!.data)).toMatchObject({ documentRoot });
    const [read] = await t.b.store.readStream(importSupplierStreamId('LZ4'));
    expect(read!.event.data).toMatchObject({ documentRoot });
  });

  it('plans each statement once, not at every execution: the batches\' reads run on the plan the connection keeps', async () => {
    const runner = new PgGroupCommitRunner(t.url);
    try {
      // Batches reading 1 to 4 streams: PostgreSQL's default mode plans a read of an array anew each time (its length known).
      const plans: { name: string; generic_plans: number; custom_plans: number }[][] = [];
      for (let i = 0; i < 12; i++) {
        const streams = Array.from({ length: (i % 4) + 1 }, (_, k) => `p-${k}`);
        await runner.run({
          streams,
          versions: [],
          plan: () => ({
            value: null,
            beforeCommit: async (_appended, tx) => {
              const { rows } = await postgresTransaction(tx).client.query<{ name: string; generic_plans: string; custom_plans: string }>(
                'SELECT name, generic_plans, custom_plans FROM pg_prepared_statements',
              );
              plans.push(rows.map((r) => ({ name: r.name, generic_plans: Number(r.generic_plans), custom_plans: Number(r.custom_plans) })));
            },
          }),
        });
      }
      const last = plans[plans.length - 1]!;
      expect(last.find((p) => p.name === 'ledger_batch_streams')?.generic_plans).toBeGreaterThanOrEqual(11);
      expect(last.filter((p) => p.custom_plans > 0)).toEqual([]);
    } finally {
      await runner.close();
    }
  });

  it('is replaced once the log has grown past the floor and by the growth since its first batch, so its statements are planned again', async () => {
    const runner = new PgGroupCommitRunner(t.url, { replan: { floor: 10, growth: 2 } });
    try {
      // A unit that appends `n` events (positions after the batch's last) and tells which backend ran it.
      const append = (n: number) => {
        let pid = 0;
        return runner
          .run({
            streams: [],
            versions: ['r'],
            plan: (view) => {
              const version = view.version('r');
              view.append(
                Array.from({ length: n }, (_, i) => ({
                  globalPosition: view.last + i + 1,
                  streamId: 'r',
                  streamPosition: version + i + 1,
                  event: { type: 'ImportSupplierCreated', version: 1, data: { status: 'Ongoing', code: 'R', documentRoot: '/', sendEmails: false, createdAt: '2026-01-01T00:00:00.000Z' } } as LedgerEvent,
                  metadata: { ...metadata, eventId: `r-${view.last + i + 1}` },
                  recordedAt: '2026-01-01T00:00:00.000Z',
                })),
              );
              return {
                value: null,
                beforeCommit: async (_appended, tx) => {
                  pid = (await postgresTransaction(tx).client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
                },
              };
            },
          })
          .then(() => pid);
      };
      const first = await append(4); // the connection's first batch: the log holds 4 events
      expect(await append(4)).toBe(first); // 8: under the floor
      expect(await append(0)).toBe(first);
      expect(await append(4)).toBe(first); // 12: past the floor and twice 4; the connection is ended after this batch
      const second = await append(0);
      expect(second).not.toBe(first);
      expect(await append(10)).toBe(second); // 22: under twice 12
      expect(await append(2)).toBe(second); // 24: twice 12
      expect(await append(0)).not.toBe(second);
    } finally {
      await runner.close();
    }
  });
});
