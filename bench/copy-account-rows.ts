// For the streamed reads on PostgreSQL: the account rows of a supplier, copied from a generated SQLite
// ledger into a PostgreSQL ledger's projection tables (what the lists and the export read). The log
// itself stays behind: generating a 1,000,000-event log in PostgreSQL would cost the bench more than the
// reads it measures.
import Database from 'better-sqlite3';
import pg from 'pg';

/** The projections the lists and the reconciliation export read, keyed by import supplier. */
const TABLES = ['account_import_processes', 'account_notes', 'account_historical_statements', 'account_ledgers'] as const;
const BATCH = 1_000;

export async function copyAccountRows(sqliteFile: string, postgresUrl: string, supplier: string): Promise<number> {
  const source = new Database(sqliteFile, { readonly: true, fileMustExist: true });
  const target = new pg.Client({ connectionString: postgresUrl });
  await target.connect();
  let accounts = 0;
  try {
    for (const table of TABLES) {
      const select = source.prepare(`SELECT * FROM ${table} WHERE import_supplier = ?`);
      const columns = select.columns().map((c) => c.name);
      // Booleans are 0/1 in SQLite, true/false in PostgreSQL.
      const booleans = new Set(
        (await target.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND data_type = 'boolean'`, [table])).rows.map(
          (r) => r.column_name,
        ),
      );
      let batch: unknown[][] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const values: unknown[] = [];
        const tuples = batch.map((row) => `(${row.map((value) => `$${values.push(value)}`).join(',')})`);
        await target.query(`INSERT INTO ${table} (${columns.join(',')}) VALUES ${tuples.join(',')}`, values);
        batch = [];
      };
      for (const row of select.raw(true).iterate(supplier) as IterableIterator<unknown[]>) {
        batch.push(row.map((value, i) => (booleans.has(columns[i]!) && value !== null ? value === 1 : value)));
        if (table === 'account_import_processes') accounts++;
        if (batch.length === BATCH) await flush();
      }
      await flush();
    }
    await target.query('ANALYZE');
    return accounts;
  } finally {
    source.close();
    await target.end();
  }
}
