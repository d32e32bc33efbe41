import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountRecordsExportReadModels } from '../../../src/queries/account-records-export-read-models.js';
import { PgQueryRunner } from '../../../src/store/postgres/pg-query-runner.js';
import { createTestDatabase, executeOn, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.js';

const ACCOUNTS = 2_000;
const CHUNK = 100;
const ext = (i: number) => `EXT-${String(i).padStart(6, '0')}`;

/**
 * What the records export (and so `import-ledger verify`) reads for a chunk of accounts: their records
 * only, whatever the planner makes of the tables. On a PostgreSQL that never analyzed them (autovacuum off,
 * or behind a fast load) it thinks the supplier holds a few rows, and a read of a whole chunk in one
 * statement took them all: a join on the chunk's range of the lists' order was planned at a million
 * accounts as a hash join over all the supplier's notes (a second a chunk of 100: verify compared 62
 * accounts a second), a list of the chunk's accounts as a scan of the supplier's index range up to 100,000
 * accounts at least. Here the server is steered off nested loops, as it was then, and the rows it read are
 * counted.
 */
describe('PostgreSQL: the records export reads a chunk\'s records by its accounts', () => {
  if (skipWithoutPostgres()) return;
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
    await executeOn(
      database.url,
      `INSERT INTO account_import_processes (import_supplier, external_account_number, state, platform_account_number, transfer_status, stage_count, first_staged_at, last_staged_at, updated_at)
         SELECT 'BENCH', 'EXT-' || lpad(g::text, 6, '0'), 'imported', 'P-' || g, 'none', 1, to_char(timestamp '2026-01-01' + g * interval '1 ms', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'x', 'x'
           FROM generate_series(0, ${ACCOUNTS - 1}) AS g;
       INSERT INTO account_notes (import_supplier, external_account_number, sequence, body, created_at, created_at_given, is_pinned, document_paths, source, recorded_at)
         SELECT 'BENCH', 'EXT-' || lpad(g::text, 6, '0'), s, 'note ' || s, 'x', false, false, '[]', 'import', 'x'
           FROM generate_series(0, ${ACCOUNTS - 1}) AS g, generate_series(1, 2) AS s;
       INSERT INTO account_ledger_transactions (import_supplier, external_account_number, transaction_id, position, type, transaction_date, amount_cents, balance_effect_cents, transaction, added_at)
         SELECT 'BENCH', 'EXT-' || lpad(g::text, 6, '0'), 'T-' || g || '-' || s, s, 'charge', '2026-01-01', 100, 100, '{}', 'x'
           FROM generate_series(0, ${ACCOUNTS - 1}) AS g, generate_series(1, 3) AS s;`,
    );
  });
  afterEach(() => database.drop());

  it('reads a chunk\'s 200 notes and 300 transactions, not the supplier\'s 4,000 and 6,000, with the server off nested loops', async () => {
    // Rows read from each table so far (a recycled test database has counted earlier tests' reads).
    const counters = async (table: string) => {
      const [row] = await executeOn(
        database.url,
        `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS rows, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans FROM pg_stat_user_tables WHERE relname = '${table}'`,
        { numbers: true },
      );
      return { rows: Number(row!['rows']), scans: Number(row!['scans']) };
    };
    const before = { notes: await counters('account_notes'), transactions: await counters('account_ledger_transactions') };
    // The read pool's sessions as a table with no statistics left them: a nested loop costed above a hash join.
    const pool = new pg.Pool({ connectionString: database.url, max: 4, options: '-c enable_nestloop=off' });
    const chunk = Array.from({ length: CHUNK }, (_, i) => ext(1_000 + i));
    try {
      const records = await createAccountRecordsExportReadModels(new PgQueryRunner(pool)).accountRecordsOf('BENCH', chunk);
      expect(records.notes).toHaveLength(2 * CHUNK);
      expect(records.transactions).toHaveLength(3 * CHUNK);
      expect(new Set(records.notes.map((r) => r.externalAccountNumber))).toEqual(new Set(chunk));
    } finally {
      // A session's table counters reach the statistics when it ends.
      await pool.end();
    }
    const readSince = async (table: string, from: { rows: number; scans: number }) => {
      for (let tries = 0; ; tries++) {
        const now = await counters(table);
        if (now.scans > from.scans || tries === 100) return now.rows - from.rows;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    expect(await readSince('account_notes', before.notes)).toBeLessThanOrEqual(2 * CHUNK);
    expect(await readSince('account_ledger_transactions', before.transactions)).toBeLessThanOrEqual(3 * CHUNK);
  });
});
