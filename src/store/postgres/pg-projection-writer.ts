import type pg from 'pg';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { is } from 'drizzle-orm';
import type { AnyRowProjection, StoredLedgerEvent } from '../../../projections/projection.js';
import { RowCodec, rowCacheId, type Key, type Row } from '../projection-rows.js';

/** The primary key columns of a canonical table (a composite key, or the one primary column). */
export function primaryKeyColumns(projection: AnyRowProjection): string[] {
  if (!is(projection.table, SQLiteTable)) throw new Error(`projection ${projection.name}: its table is not a canonical (sqlite-core) table`);
  const config = getTableConfig(projection.table);
  const composite = config.primaryKeys[0]?.columns.map((c) => c.name);
  const single = config.columns.filter((c) => c.primary).map((c) => c.name);
  const columns = composite ?? single;
  if (columns.length === 0) throw new Error(`projection ${projection.name}: its table has no primary key`);
  return columns;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Reads and writes the rows of one projection on PostgreSQL, asynchronously,
 * inside the caller's transaction (the writer connection under the writers'
 * lock, or a rebuild's connection). The same keyOf/evolve as every store.
 * `tableName` lets a rebuild write into a scratch copy of the table.
 */
export class PgProjectionTable {
  readonly codec: RowCodec;
  readonly tableName: string;
  private readonly names: string[];
  private readonly keyColumns: string[];
  private readonly sql: { insert: string; upsert: string };

  constructor(
    readonly projection: AnyRowProjection,
    tableName?: string,
  ) {
    this.codec = new RowCodec(projection.table);
    this.tableName = tableName ?? this.codec.tableName;
    this.names = this.codec.columns.map(([, column]) => column.name);
    this.keyColumns = primaryKeyColumns(projection);
    const table = quote(this.tableName);
    const columns = this.names.map(quote).join(', ');
    const values = this.names.map((_, i) => `$${i + 1}`).join(', ');
    const updates = this.names.filter((n) => !this.keyColumns.includes(n)).map((n) => `${quote(n)} = excluded.${quote(n)}`);
    this.sql = {
      insert: `INSERT INTO ${table} (${columns}) VALUES (${values})`,
      upsert: `INSERT INTO ${table} (${columns}) VALUES (${values}) ON CONFLICT (${this.keyColumns.map(quote).join(', ')}) DO ${
        updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'
      }`,
    };
  }

  async load(client: pg.ClientBase, key: Key): Promise<Row | null> {
    const props = Object.keys(key);
    const where = props.map((prop, i) => `${quote(this.codec.column(prop).name)} = $${i + 1}`).join(' AND ');
    const { rows } = await client.query<Row>({ text: `SELECT * FROM ${quote(this.tableName)} WHERE ${where}`, values: this.codec.keyValues(key) });
    return rows[0] ? this.codec.fromDriver(rows[0]) : null;
  }

  /**
   * The rows of many keys at once (a rebuild's batch): keyed by the rows'
   * cache ids; a key with no row maps to null. Keys must name exactly the
   * primary key columns (the rows they name are found by their primary key).
   */
  async loadMany(client: pg.ClientBase, keys: readonly Key[]): Promise<Map<string, Row | null>> {
    const found = new Map<string, Row | null>();
    if (keys.length === 0) return found;
    const props = Object.keys(keys[0]!);
    for (const key of keys) found.set(rowCacheId(this.tableName, key), null);
    const columns = props.map((prop) => quote(this.codec.column(prop).name)).join(', ');
    const perStatement = Math.max(1, Math.floor(30_000 / props.length));
    for (let i = 0; i < keys.length; i += perStatement) {
      const tuples: string[] = [];
      const values: unknown[] = [];
      for (const key of keys.slice(i, i + perStatement)) {
        const start = values.length;
        tuples.push(`(${props.map((_, j) => `$${start + j + 1}`).join(', ')})`);
        values.push(...this.codec.keyValues(key));
      }
      const { rows } = await client.query<Row>({ text: `SELECT * FROM ${quote(this.tableName)} WHERE (${columns}) IN (${tuples.join(', ')})`, values });
      for (const raw of rows) {
        const row = this.codec.fromDriver(raw);
        const key: Key = {};
        for (const prop of props) key[prop] = row[prop];
        found.set(rowCacheId(this.tableName, key), row);
      }
    }
    return found;
  }

  async insert(client: pg.ClientBase, row: Row): Promise<void> {
    await client.query({ text: this.sql.insert, values: this.codec.rowValues(row) });
  }

  async update(client: pg.ClientBase, key: Key, row: Row): Promise<void> {
    const sets = this.names.map((name, i) => `${quote(name)} = $${i + 1}`).join(', ');
    const props = Object.keys(key);
    const where = props.map((prop, i) => `${quote(this.codec.column(prop).name)} = $${this.names.length + i + 1}`).join(' AND ');
    await client.query({ text: `UPDATE ${quote(this.tableName)} SET ${sets} WHERE ${where}`, values: [...this.codec.rowValues(row), ...this.codec.keyValues(key)] });
  }

  async upsertMany(client: pg.ClientBase, rows: readonly Row[]): Promise<void> {
    // Bounded statements: PostgreSQL takes at most 65,535 parameters.
    const perStatement = Math.max(1, Math.floor(60_000 / this.names.length));
    for (let i = 0; i < rows.length; i += perStatement) {
      const chunk = rows.slice(i, i + perStatement);
      const values: unknown[] = [];
      const tuples = chunk.map((row) => {
        const start = values.length;
        values.push(...this.codec.rowValues(row));
        return `(${this.names.map((_, j) => `$${start + j + 1}`).join(', ')})`;
      });
      const text = this.sql.upsert.replace(/VALUES \([^)]*\)/, `VALUES ${tuples.join(', ')}`);
      await client.query({ text, values });
    }
  }

  async delete(client: pg.ClientBase, key: Key): Promise<void> {
    const props = Object.keys(key);
    const where = props.map((prop, i) => `${quote(this.codec.column(prop).name)} = $${i + 1}`).join(' AND ');
    await client.query({ text: `DELETE FROM ${quote(this.tableName)} WHERE ${where}`, values: this.codec.keyValues(key) });
  }

}

/**
 * The inline projections of one unit's events, in two flights instead of
 * two round trips per event and projection: every row the events touch is
 * loaded at once, evolved in memory in event order (the same keyOf/evolve as
 * a row-by-row apply, so the same result), and written back at once. The
 * writes are sent, not awaited: they are handed to `defer` (the runner awaits
 * them with the unit's RELEASE).
 */
export async function projectEvents(
  client: pg.ClientBase,
  tablesOf: (type: string) => readonly PgProjectionTable[],
  events: readonly StoredLedgerEvent[],
  defer: (statement: Promise<unknown>) => void,
): Promise<void> {
  const rows = new Map<string, { table: PgProjectionTable; key: Key; row: Row | null; existed: boolean }>();
  const touches: { id: string; stored: StoredLedgerEvent }[] = [];
  for (const stored of events) {
    for (const table of tablesOf(stored.event.type)) {
      const key = table.projection.keyOf(stored);
      if (!key) continue;
      const id = rowCacheId(table.tableName, key);
      if (!rows.has(id)) rows.set(id, { table, key, row: null, existed: false });
      touches.push({ id, stored });
    }
  }
  if (touches.length === 0) return;
  const entries = [...rows.values()];
  const loaded = await Promise.all(entries.map((entry) => entry.table.load(client, entry.key)));
  entries.forEach((entry, i) => {
    entry.row = loaded[i] ?? null;
    entry.existed = entry.row !== null;
  });
  for (const { id, stored } of touches) {
    const entry = rows.get(id)!;
    entry.row = entry.table.projection.evolve(entry.row, stored) as Row | null;
  }
  for (const entry of entries) {
    if (entry.row === null) {
      if (entry.existed) defer(entry.table.delete(client, entry.key));
    } else {
      defer(entry.existed ? entry.table.update(client, entry.key, entry.row) : entry.table.insert(client, entry.row));
    }
  }
}

/**
 * The inline projections of a whole group-commit batch's events, in two
 * flights whatever the batch's size: every row the events touch loaded at
 * once (one statement a table), evolved in memory in log order (the same
 * keyOf/evolve, so the same rows as unit by unit), and each written once
 * (one upsert a table, a DELETE a removed row). The writes are sent and
 * returned, not awaited.
 */
export async function projectBatch(
  client: pg.ClientBase,
  tablesOf: (type: string) => readonly PgProjectionTable[],
  events: readonly StoredLedgerEvent[],
): Promise<Promise<unknown>[]> {
  const keys = new Map<PgProjectionTable, Map<string, Key>>();
  const touches: { table: PgProjectionTable; id: string; stored: StoredLedgerEvent }[] = [];
  for (const stored of events) {
    for (const table of tablesOf(stored.event.type)) {
      const key = table.projection.keyOf(stored);
      if (!key) continue;
      const id = rowCacheId(table.tableName, key);
      keys.set(table, (keys.get(table) ?? new Map<string, Key>()).set(id, key));
      touches.push({ table, id, stored });
    }
  }
  if (touches.length === 0) return [];
  const tables = [...keys.keys()];
  const loaded = await Promise.all(tables.map((table) => table.loadMany(client, [...keys.get(table)!.values()])));
  const rows = new Map<string, { table: PgProjectionTable; key: Key; row: Row | null; existed: boolean }>();
  tables.forEach((table, i) => {
    for (const [id, key] of keys.get(table)!) {
      const row = loaded[i]!.get(id) ?? null;
      rows.set(id, { table, key, row, existed: row !== null });
    }
  });
  for (const { table, id, stored } of touches) {
    const entry = rows.get(id)!;
    entry.row = table.projection.evolve(entry.row, stored) as Row | null;
  }
  const writes: Promise<unknown>[] = [];
  const upserts = new Map<PgProjectionTable, Row[]>();
  for (const entry of rows.values()) {
    if (entry.row !== null) upserts.set(entry.table, [...(upserts.get(entry.table) ?? []), entry.row]);
    else if (entry.existed) writes.push(entry.table.delete(client, entry.key));
  }
  for (const [table, upserted] of upserts) writes.push(table.upsertMany(client, upserted));
  return writes;
}
