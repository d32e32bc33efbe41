import Database from 'better-sqlite3';

/**
 * Runs `query` on a connection of its own to a SQLite ledger file, as an
 * auditor or a crash would see it (no application code in between); the
 * service's connection stays inside the store. Writes commit at once.
 */
export function withSqlite<T>(file: string, query: (sqlite: Database.Database) => T): T {
  const sqlite = new Database(file, { fileMustExist: true });
  sqlite.pragma('busy_timeout = 5000');
  try {
    return query(sqlite);
  } finally {
    sqlite.close();
  }
}

/** Every row of `table` in a stable order (all columns ascending): what "identical tables" is checked on. */
export function tableRows(file: string, table: string): unknown[] {
  return withSqlite(file, (sqlite) => sqlite.prepare(`SELECT * FROM "${table}" ORDER BY 1, 2`).all());
}

/** Runs one statement on a connection of its own to the file; returns the rows it read (none for a write). */
export async function executeOnFile(file: string, sql: string): Promise<Record<string, unknown>[]> {
  return withSqlite(file, (sqlite) => {
    const statement = sqlite.prepare(sql);
    if (statement.reader) return statement.all() as Record<string, unknown>[];
    statement.run();
    return [];
  });
}
