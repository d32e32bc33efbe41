import { createHash } from 'node:crypto';
import type pg from 'pg';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { getTableColumns, is } from 'drizzle-orm';
import { bumpReadGeneration, READ_GENERATION_TABLES } from './pg-read-generation.js';
import { toPgTable } from './pg-schema.js';
import type { AnyRowProjection, StoredLedgerEvent } from '../../../projections/projection.js';
import { RowCodec, rowCacheId, type Key, type Row } from '../projection-rows.js';
import { applyTallyChange, tallyChanges, type TallyChange } from '../tallies.js';

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

/** Rows (keys) one statement writes (reads) at most: its arrays stay a few megabytes. */
const ROWS_PER_STATEMENT = 2_000;
const KEYS_PER_STATEMENT = 10_000;

/** The name a statement is prepared under on each connection (its text's hash: one text, one name). */
const names = new Map<string, string>();
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `ledger_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

function canonical(projection: AnyRowProjection): SQLiteTable {
  if (!is(projection.table, SQLiteTable)) throw new Error(`projection ${projection.name}: its table is not a canonical (sqlite-core) table`);
  return projection.table;
}

/**
 * Reads and writes the rows of one projection on PostgreSQL, asynchronously,
 * inside the caller's transaction (the writer connection under the writers'
 * lock, or a rebuild's connection). The same keyOf/evolve as every store.
 * `tableName` lets a rebuild write into a scratch copy of the table.
 */
export class PgProjectionTable {
  readonly codec: RowCodec;
  readonly tableName: string;
  /** The tables of the tallies kept over this projection's rows (`linkTallies`). */
  tallies: readonly PgProjectionTable[] = [];
  private readonly names: string[];
  private readonly keyColumns: string[];
  private readonly upsertArrays: string;
  /** Each column's PostgreSQL type, by column name (the arrays of an unnested statement are cast to them). */
  private readonly sqlTypes: Map<string, string>;

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
    const updates = this.names.filter((n) => !this.keyColumns.includes(n)).map((n) => `${quote(n)} = excluded.${quote(n)}`);
    this.sqlTypes = new Map(Object.values(getTableColumns(toPgTable(canonical(projection)))).map((column) => [column.name, column.getSQLType()]));
    const onConflict = `ON CONFLICT (${this.keyColumns.map(quote).join(', ')}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
    this.upsertArrays = `INSERT INTO ${table} (${columns}) SELECT * FROM unnest(${this.names.map((n, i) => `$${i + 1}::${this.sqlTypes.get(n)}[]`).join(', ')}) ${onConflict}`;
  }

  /**
   * The rows of many keys at once (a batch's, a rebuild's): keyed by the rows'
   * cache ids; a key with no row maps to null. Keys must name exactly the
   * primary key columns (the rows they name are found by their primary key).
   */
  async loadMany(client: pg.ClientBase, keys: readonly Key[]): Promise<Map<string, Row | null>> {
    const found = new Map<string, Row | null>();
    if (keys.length === 0) return found;
    const props = Object.keys(keys[0]!);
    for (const key of keys) found.set(rowCacheId(this.tableName, key), null);
    // One statement text whatever the number of keys (the keys' columns as arrays), prepared once.
    const names = props.map((prop) => this.codec.column(prop).name);
    const arrays = names.map((name, i) => `$${i + 1}::${this.sqlTypes.get(name)}[]`);
    const text =
      names.length === 1
        ? `SELECT * FROM ${quote(this.tableName)} WHERE ${quote(names[0]!)} = ANY(${arrays[0]})`
        : `SELECT * FROM ${quote(this.tableName)} WHERE (${names.map(quote).join(', ')}) IN (SELECT * FROM unnest(${arrays.join(', ')}))`;
    for (let i = 0; i < keys.length; i += KEYS_PER_STATEMENT) {
      const values: unknown[][] = props.map(() => []);
      for (const key of keys.slice(i, i + KEYS_PER_STATEMENT)) this.codec.keyValues(key).forEach((value, j) => values[j]!.push(value));
      const { rows } = await client.query<Row>({ name: statementName(text), text, values });
      for (const raw of rows) {
        const row = this.codec.fromDriver(raw);
        const key: Key = {};
        for (const prop of props) key[prop] = row[prop];
        found.set(rowCacheId(this.tableName, key), row);
      }
    }
    return found;
  }



  async upsertMany(client: pg.ClientBase, rows: readonly Row[]): Promise<void> {
    // One statement text whatever the number of rows (each column as an array), prepared once.
    const text = this.upsertArrays;
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const values: unknown[][] = this.names.map(() => []);
      for (const row of rows.slice(i, i + ROWS_PER_STATEMENT)) this.codec.rowValues(row).forEach((value, j) => values[j]!.push(value));
      await client.query({ name: statementName(text), text, values });
    }
  }

  async delete(client: pg.ClientBase, key: Key): Promise<void> {
    const props = Object.keys(key);
    const where = props.map((prop, i) => `${quote(this.codec.column(prop).name)} = $${i + 1}`).join(' AND ');
    await client.query({ text: `DELETE FROM ${quote(this.tableName)} WHERE ${where}`, values: this.codec.keyValues(key) });
  }

}

/** Hands each table the tables of the tallies kept over its rows (among `tables`). */
export function linkTallies(tables: readonly PgProjectionTable[]): void {
  for (const table of tables) table.tallies = tables.filter((t) => t.projection.tally?.source === table.projection);
}

/**
 * The inline projections of a whole group-commit batch's events, in two
 * flights whatever the batch's size: every row the events touch loaded at
 * once (one statement a table), evolved in memory in log order (the same
 * keyOf/evolve, so the same rows as unit by unit), then written unit after
 * unit, each unit's rows as they stand after it (one upsert a table and
 * unit, a DELETE a removed row): so a unique index refuses exactly what it
 * would refuse were the units written one by one (a state the batch passes
 * through is written, not only its last). The writes are sent and returned,
 * not awaited.
 */
export async function projectBatch(
  client: pg.ClientBase,
  tablesOf: (type: string) => readonly PgProjectionTable[],
  units: readonly (readonly StoredLedgerEvent[])[],
): Promise<Promise<unknown>[]> {
  const keys = new Map<PgProjectionTable, Map<string, Key>>();
  const touches: { table: PgProjectionTable; id: string; stored: StoredLedgerEvent }[][] = [];
  for (const events of units) {
    const unit: { table: PgProjectionTable; id: string; stored: StoredLedgerEvent }[] = [];
    for (const stored of events) {
      for (const table of tablesOf(stored.event.type)) {
        const key = table.projection.keyOf(stored);
        if (!key) continue;
        const id = rowCacheId(table.tableName, key);
        keys.set(table, (keys.get(table) ?? new Map<string, Key>()).set(id, key));
        unit.push({ table, id, stored });
      }
    }
    touches.push(unit);
  }
  if (keys.size === 0) return [];
  const tables = [...keys.keys()];
  const loaded = await Promise.all(tables.map((table) => table.loadMany(client, [...keys.get(table)!.values()])));
  const rows = new Map<string, { table: PgProjectionTable; key: Key; row: Row | null; existed: boolean }>();
  tables.forEach((table, i) => {
    for (const [id, key] of keys.get(table)!) {
      const row = loaded[i]!.get(id) ?? null;
      rows.set(id, { table, key, row, existed: row !== null });
    }
  });
  // Every unit evolved first (each unit's rows kept as they stand after it), so that the tallies' rows,
  // known only once the source rows have moved, are loaded before any write is sent.
  const after: Map<string, Row | null>[] = [];
  const changes: { table: PgProjectionTable; change: TallyChange }[] = [];
  for (const unit of touches) {
    const state = new Map<string, Row | null>();
    for (const { table, id, stored } of unit) {
      const entry = rows.get(id)!;
      const before = entry.row;
      entry.row = table.projection.evolve(entry.row, stored) as Row | null;
      state.set(id, entry.row);
      for (const tally of table.tallies) for (const change of tallyChanges(tally.projection, before, entry.row)) changes.push({ table: tally, change });
    }
    after.push(state);
  }
  const counted = await tallyRows(client, changes);
  const writes: Promise<unknown>[] = [];
  // Instances keep these tables' rows in memory until the generation moves: it moves with them.
  if ([...tables, ...counted.keys()].some((table) => READ_GENERATION_TABLES.has(table.tableName))) writes.push(bumpReadGeneration(client));
  const existed = new Map([...rows].map(([id, entry]) => [id, entry.existed]));
  for (const state of after) {
    const upserts = new Map<PgProjectionTable, Row[]>();
    for (const [id, row] of state) {
      const entry = rows.get(id)!;
      if (row !== null) upserts.set(entry.table, [...(upserts.get(entry.table) ?? []), row]);
      else if (existed.get(id)) writes.push(entry.table.delete(client, entry.key));
      existed.set(id, row !== null);
    }
    for (const [table, upserted] of upserts) writes.push(table.upsertMany(client, upserted));
  }
  // A tally's rows are written once, as they stand after the batch: they carry no unique index a unit could trip.
  for (const [table, entries] of counted) {
    const upserted: Row[] = [];
    for (const entry of entries.values()) {
      if (entry.row !== null) upserted.push(entry.row);
      else if (entry.existed) writes.push(table.delete(client, entry.key));
    }
    if (upserted.length > 0) writes.push(table.upsertMany(client, upserted));
  }
  return writes;
}

/** The tally rows `changes` move, loaded (one query a table) and with the changes applied. */
async function tallyRows(
  client: pg.ClientBase,
  changes: readonly { table: PgProjectionTable; change: TallyChange }[],
): Promise<Map<PgProjectionTable, Map<string, { key: Key; row: Row | null; existed: boolean }>>> {
  const byTable = new Map<PgProjectionTable, Map<string, { key: Key; row: Row | null; existed: boolean }>>();
  for (const { table, change } of changes) {
    const entries = byTable.get(table) ?? new Map<string, { key: Key; row: Row | null; existed: boolean }>();
    entries.set(rowCacheId(table.tableName, change.key), { key: change.key, row: null, existed: false });
    byTable.set(table, entries);
  }
  for (const [table, entries] of byTable) {
    const found = await table.loadMany(client, [...entries.values()].map((e) => e.key));
    for (const [id, entry] of entries) {
      entry.row = found.get(id) ?? null;
      entry.existed = entry.row !== null;
    }
  }
  for (const { table, change } of changes) {
    const entry = byTable.get(table)!.get(rowCacheId(table.tableName, change.key))!;
    entry.row = applyTallyChange(entry.row, change);
  }
  return byTable;
}
