import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PURGE_WINDOW } from '../../../src/store/idempotency-keys.js';
import { PURGE_EXPIRED } from '../../../src/store/postgres/pg-idempotency-records.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { openInstances, type Instances } from './instances.js';

/**
 * The purge of expired Idempotency-Key rows on PostgreSQL reads what it deletes, not the table: at a million
 * accounts the keys number millions, and a purge runs every 100 requests of each instance.
 */
describe('PostgreSQL: the Idempotency-Key purge', () => {
  if (skipWithoutPostgres()) return;
  let t: Instances;
  beforeEach(async () => {
    t = await openInstances();
  });
  afterEach(() => t.close());

  /** `count` completed keys named `<prefix>-<n>`, created `ms` apart from `from` on (written as a completion writes them). */
  const insertKeys = (prefix: string, count: number, from: Date) =>
    t.sql(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, request_path, event_positions, status, response_body, response_content_type, created_at, completed_at)
       SELECT 'key_test', $1 || '-' || n, 'fp', '/v1/data-import/x/', '[]', 201, '{}', 'application/json', c, c
       FROM generate_series(1, $2::int) AS n, to_char(($3::timestamptz + n * interval '1 millisecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS c`,
      [prefix, count, from.toISOString()],
    );

  it('deletes the oldest expired rows, PURGE_WINDOW at most a purge, found on the created_at index however many keys there are', async () => {
    const old = 100 * PURGE_WINDOW + 500;
    await insertKeys('old', old, t.clock.read());
    t.clock.advanceSeconds(12 * 3600);
    await insertKeys('fresh', 10, t.clock.read());
    // A key taken over since: an old row with a newer created_at stays.
    await t.sql(`UPDATE idempotency_keys SET created_at = $1 WHERE idempotency_key = 'old-1'`, [t.clock.read().toISOString()]);
    // Past the retention for every old key (written over 100 s), not for the fresh ones.
    t.clock.advanceSeconds(12 * 3600 + 200);

    // The plan PostgreSQL keeps for any cutoff, with no statistics yet of how many keys are expired: the index, not the table.
    await t.sql('SET plan_cache_mode = force_generic_plan');
    await t.sql(`PREPARE purge(text) AS ${PURGE_EXPIRED.replace('?', '$1')}`);
    const plan = (await t.sql<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE purge('${t.clock.read().toISOString()}')`)).map((row) => row['QUERY PLAN']).join('\n');
    await t.sql('DEALLOCATE purge');
    await t.sql('RESET plan_cache_mode');
    expect(plan).toContain('Index Scan using idempotency_keys_created_at_idx');
    expect(plan).not.toContain('Seq Scan');

    const first = await t.a.idempotency.purgeExpired();
    const second = await t.b.idempotency.purgeExpired();
    expect([first, second]).toEqual([PURGE_WINDOW, PURGE_WINDOW]);
    // The oldest went first.
    const gone = await t.sql<{ idempotency_key: string }>(`SELECT idempotency_key FROM idempotency_keys WHERE idempotency_key IN ('old-2', 'old-2001', 'old-2002')`);
    expect(gone.map((row) => row.idempotency_key)).toEqual(['old-2002']);
    let purged = first + second;
    for (let n = await t.a.idempotency.purgeExpired(); n > 0; n = await t.a.idempotency.purgeExpired()) purged += n;
    expect(purged).toBe(old - 1);
    const left = await t.sql<{ idempotency_key: string }>('SELECT idempotency_key FROM idempotency_keys ORDER BY idempotency_key');
    expect(left.map((row) => row.idempotency_key)).toEqual(['fresh-1', 'fresh-10', 'fresh-2', 'fresh-3', 'fresh-4', 'fresh-5', 'fresh-6', 'fresh-7', 'fresh-8', 'fresh-9', 'old-1']);
  });
});
