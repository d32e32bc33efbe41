import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientConfig } from '../../../src/store/postgres/pg-database.js';
import { READ_STREAMS } from '../../../src/store/postgres/pg-write-unit.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { openInstances, type Instances } from './instances.js';

/**
 * Every connection of the ledger plans its lookups without parallel workers and without JIT, whatever the
 * planner thinks they cost. On a large table never analyzed (autovacuum off, or behind a fast load) it thinks
 * a lookup of a few streams reads a million rows: at a million accounts, reading a stream's 20 events under
 * the writers' lock took 16-19 ms, 15 of them compiling the query, on every execution.
 */
describe('PostgreSQL: the session settings of the ledger\'s connections', () => {
  if (skipWithoutPostgres()) return;
  let t: Instances;
  let client: pg.Client;
  beforeEach(async () => {
    t = await openInstances();
    client = new pg.Client(clientConfig(t.url));
    await client.connect();
  });
  afterEach(async () => {
    await client.end();
    await t.close();
  });

  it('a batch\'s stream read costed as on a large table never analyzed: no JIT, no parallel workers', async () => {
    expect((await client.query('SHOW jit')).rows[0].jit).toBe('off');
    expect((await client.query('SHOW max_parallel_workers_per_gather')).rows[0].max_parallel_workers_per_gather).toBe('0');
    // What a large unanalyzed table makes of any plan's cost: past every JIT threshold, parallel workers cheap.
    for (const setting of ['jit_above_cost = 0', 'jit_inline_above_cost = 0', 'jit_optimize_above_cost = 0', 'parallel_setup_cost = 0', 'parallel_tuple_cost = 0', 'min_parallel_table_scan_size = 0', 'min_parallel_index_scan_size = 0', 'enable_seqscan = off']) {
      await client.query(`SET ${setting}`);
    }
    const plan = (await client.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (ANALYZE) ${READ_STREAMS}`, values: [['account-import-process:T:A-1', 'account-import-process:T:A-2']] })).rows
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    expect(plan).not.toContain('JIT:');
    expect(plan).not.toContain('Gather');
  });
});
