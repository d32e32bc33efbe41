import type pg from 'pg';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { getTableColumns } from 'drizzle-orm';
import { statementName } from './pg-database.js';
import { READ_GENERATION_TABLES } from '../read-generation-tables.js';
import { bumpReadGeneration } from './pg-read-generation.js';
import { canonicalTable, toPgTable } from './pg-schema.js';
import type { AnyRowProjection, StoredLedgerEvent } from '../../../projections/projection.js';
import { quote, RowCodec, rowCacheId, type Key, type Row } from '../projection-rows.js';
import { evolveRow, keysByTable, listOf, touches, type RowTouch, type TableTallyChange } from '../projection-replay.js';
import { netTallyChanges, type TallyChange } from '../tallies.js';

/** The primary key columns of a canonical table (a composite key, or the one primary column). */
export function primaryKeyColumns(projection: AnyRowProjection): string[] {
  const config = getTableConfig(canonicalTable(projection));
  const composite = config.primaryKeys[0]?.columns.map((c) => c.name);
  const single = config.columns.filter((c) => c.primary).map((c) => c.name);
  const columns = composite ?? single;
  if (columns.length === 0) throw new Error(`projection ${projection.name}: its table has no primary key`);
  return columns;
}

/** Rows (keys) one statement writes (reads) at most: its arrays stay a few megabytes. */
const ROWS_PER_STATEMENT = 2_000;
const KEYS_PER_STATEMENT = 10_000;

/** Whether PostgreSQL takes a value (not null) into a column of each type; a type not here is not told. */
const accepted = new Map<string, (value: unknown) => boolean>([
  ['text', (value) => typeof value === 'string' && !value.includes('\u0000')],
  ['bigint', (value) => typeof value === 'number' && Number.isSafeInteger(value)],
  ['boolean', (value) => typeof value === 'boolean'],
  ['double precision', (value) => typeof value === 'number'],
]);

/**
 * Reads and writes the rows of one projection on PostgreSQL, in the caller's transaction (the writer's
 * under the writers' lock, or a rebuild's). `tableName` lets a rebuild write into a scratch copy.
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
  /** The properties of each unique index or constraint other than the primary key. */
  readonly uniqueProps: readonly (readonly string[])[];

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
    this.sqlTypes = new Map(Object.values(getTableColumns(toPgTable(canonicalTable(projection)))).map((column) => [column.name, column.getSQLType()]));
    const onConflict = `ON CONFLICT (${this.keyColumns.map(quote).join(', ')}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
    this.upsertArrays = `INSERT INTO ${table} (${columns}) SELECT * FROM unnest(${this.arrays(this.names)}) ${onConflict}`;
    const config = getTableConfig(canonicalTable(projection));
    const propOf = new Map(this.codec.columns.map(([prop, column]) => [column.name, prop]));
    const props = (columns: readonly { name: string }[]) => columns.map((column) => propOf.get(column.name)!);
    this.uniqueProps = [
      ...config.indexes.filter(({ config: ix }) => ix.unique).map(({ config: ix }) => props(ix.columns as { name: string }[])),
      ...config.uniqueConstraints.map((uc) => props(uc.columns)),
      ...config.columns.filter((column) => column.isUnique).map((column) => props([column])),
    ];
  }

  /**
   * Whether PostgreSQL would take `row` as far as one row can be refused on its own (NOT NULL, each column's
   * type, text without U+0000); false for anything it cannot tell (see collapsibleTables).
   */
  acceptsRow(row: Row): boolean {
    return this.codec.columns.every(([prop, column]) => {
      const value = this.codec.toDriver(column, row[prop]);
      return value === null ? !column.notNull : (accepted.get(this.sqlTypes.get(column.name)!)?.(value) ?? false);
    });
  }

  /** The rows of many keys at once, by row cache id (null: no row); keys name exactly the primary key columns. */
  async loadMany(client: pg.ClientBase, keys: readonly Key[]): Promise<Map<string, Row | null>> {
    const found = new Map<string, Row | null>();
    if (keys.length === 0) return found;
    const props = Object.keys(keys[0]!);
    for (const key of keys) found.set(rowCacheId(this.tableName, key), null);
    const names = props.map((prop) => this.codec.column(prop).name);
    const text =
      names.length === 1
        ? `SELECT * FROM ${quote(this.tableName)} WHERE ${quote(names[0]!)} = ANY(${this.arrays(names)})`
        : `SELECT * FROM ${quote(this.tableName)} WHERE (${names.map(quote).join(', ')}) IN (SELECT * FROM unnest(${this.arrays(names)}))`;
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
    const text = this.upsertArrays;
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const values: unknown[][] = this.names.map(() => []);
      for (const row of rows.slice(i, i + ROWS_PER_STATEMENT)) this.codec.rowValues(row).forEach((value, j) => values[j]!.push(value));
      await client.query({ name: statementName(text), text, values });
    }
  }

  /**
   * A tally's rows moved by `changes` as `applyTallyChange` moves them, in two statements sent and returned,
   * not awaited: an upsert that adds the amounts, then the DELETE of the rows whose every count is back to 0.
   */
  addToTally(client: pg.ClientBase, changes: readonly TallyChange[]): Promise<unknown>[] {
    const spec = this.projection.tally;
    if (!spec) throw new Error(`projection ${this.projection.name} is no tally`);
    if (changes.length === 0) return [];
    const table = quote(this.tableName);
    const keyProps = this.keyColumns.map((name) => this.codec.columns.find(([, column]) => column.name === name)![0]);
    const countColumns = spec.counts.map((prop) => this.codec.column(prop).name);
    const columns = [...this.keyColumns, ...countColumns];
    const add = `INSERT INTO ${table} (${columns.map(quote).join(', ')}) SELECT * FROM unnest(${this.arrays(columns)})
      ON CONFLICT (${this.keyColumns.map(quote).join(', ')}) DO UPDATE SET ${countColumns.map((c) => `${quote(c)} = ${table}.${quote(c)} + excluded.${quote(c)}`).join(', ')}`;
    const emptied = `DELETE FROM ${table} WHERE (${this.keyColumns.map(quote).join(', ')}) IN (SELECT * FROM unnest(${this.arrays(this.keyColumns)}))
      AND ${countColumns.map((c) => `${quote(c)} = 0`).join(' AND ')}`;
    const values: unknown[][] = columns.map(() => []);
    for (const change of changes) {
      const keyValues = this.codec.keyValues(Object.fromEntries(keyProps.map((prop) => [prop, change.key[prop]])));
      keyValues.forEach((value, i) => values[i]!.push(value));
      spec.counts.forEach((prop, i) => values[this.keyColumns.length + i]!.push(change.counts[prop] ?? 0));
    }
    return [
      client.query({ name: statementName(add), text: add, values }),
      client.query({ name: statementName(emptied), text: emptied, values: values.slice(0, this.keyColumns.length) }),
    ];
  }

  async delete(client: pg.ClientBase, key: Key): Promise<void> {
    const props = Object.keys(key);
    const where = props.map((prop, i) => `${quote(this.codec.column(prop).name)} = $${i + 1}`).join(' AND ');
    await client.query({ text: `DELETE FROM ${quote(this.tableName)} WHERE ${where}`, values: this.codec.keyValues(key) });
  }

  /** The parameters `$1, $2, ...` of `columns`, each an array of the column's type (one statement text for any number of rows). */
  private arrays(columns: readonly string[]): string {
    return columns.map((name, i) => `$${i + 1}::${this.sqlTypes.get(name)}[]`).join(', ');
  }
}

/** Rows a batch read under the writers' lock before deciding, by table and row id (null: no such row). */
export type Preloaded = ReadonlyMap<PgProjectionTable, ReadonlyMap<string, Row | null>>;

/** A row a batch touches: its key, its state as the batch evolves it, and as it was stored. */
interface BatchRow {
  readonly table: PgProjectionTable;
  readonly key: Key;
  row: Row | null;
  readonly stored: Row | null;
}

/**
 * The inline projections of a whole group-commit batch's events, in two flights whatever its size: every
 * row the events touch loaded at once (`load`, one statement a table, for the rows not preloaded), evolved
 * in memory in log order, then written unit after unit as they stand after each (`write`: one upsert a table
 * and unit, a DELETE a removed row), so a unique index refuses exactly what it would refuse were the units
 * written one by one. The writes are sent and returned, not awaited. In two steps for a caller under the
 * writers' lock that must not give the event loop away when nothing is missing.
 */
export class BatchProjection {
  private readonly units: RowTouch<PgProjectionTable>[][];
  private readonly rows = new Map<string, BatchRow>();
  /** Keys not preloaded, by table and row id. */
  private readonly unloaded: Map<PgProjectionTable, Map<string, Key>>;

  constructor(tablesOf: (type: string) => readonly PgProjectionTable[], units: readonly (readonly StoredLedgerEvent[])[], preloaded?: Preloaded) {
    this.units = units.map((events) => [...touches(tablesOf, events)]);
    this.unloaded = keysByTable(this.units.flat());
    // The rows read already under the lock in this transaction (and nothing written since): only the others are loaded.
    for (const [table, byId] of this.unloaded) {
      const had = preloaded?.get(table);
      for (const [id, key] of byId) {
        if (!had?.has(id)) continue;
        this.had(table, id, key, had.get(id) ?? null);
        byId.delete(id);
      }
    }
  }

  /** How many rows were not preloaded (`load` reads them). */
  get missing(): number {
    return [...this.unloaded.values()].reduce((n, byId) => n + byId.size, 0);
  }

  /** Reads the rows not preloaded, in one flight. */
  async load(client: pg.ClientBase): Promise<void> {
    const tables = [...this.unloaded];
    const loaded = await Promise.all(tables.map(([table, byId]) => table.loadMany(client, [...byId.values()])));
    tables.forEach(([table, byId], i) => {
      for (const [id, key] of byId) this.had(table, id, key, loaded[i]!.get(id) ?? null);
    });
    this.unloaded.clear();
  }

  /** Evolves every row through the batch and sends the writes (returned, not awaited). Every row must be had. */
  write(client: pg.ClientBase): Promise<unknown>[] {
    if (this.missing > 0) throw new Error('a batch projection written before its rows were loaded');
    if (this.rows.size === 0) return [];
    // Every unit evolved first (each unit's rows kept as they stand after it), the tallies' changes kept.
    const after: Map<string, Row | null>[] = [];
    const changes: TableTallyChange<PgProjectionTable>[] = [];
    for (const unit of this.units) {
      const state = new Map<string, Row | null>();
      for (const { table, id, stored } of unit) {
        const entry = this.rows.get(id)!;
        entry.row = evolveRow(table, entry.row, stored, changes);
        state.set(id, entry.row);
      }
      after.push(state);
    }
    const writes: Promise<unknown>[] = [];
    // Instances keep these tables' rows in memory until the generation moves: it moves with them (no tally is one of them).
    if ([...this.rows.values()].some((entry) => READ_GENERATION_TABLES.has(entry.table.tableName))) writes.push(bumpReadGeneration(client));
    const collapsed = collapsibleTables(this.rows, after);
    const existed = new Map([...this.rows].map(([id, entry]) => [id, entry.stored !== null]));
    /** Sends the rows of `state` (by id) of the tables `taken`: one upsert a table, a DELETE a row gone. */
    const send = (state: Iterable<readonly [string, Row | null]>, taken: (table: PgProjectionTable) => boolean) => {
      const upserts = new Map<PgProjectionTable, Row[]>();
      for (const [id, row] of state) {
        const entry = this.rows.get(id)!;
        if (!taken(entry.table)) continue;
        if (row !== null) listOf(upserts, entry.table).push(row);
        else if (existed.get(id)) writes.push(entry.table.delete(client, entry.key));
        existed.set(id, row !== null);
      }
      for (const [table, upserted] of upserts) writes.push(table.upsertMany(client, upserted));
    };
    for (const state of after) send(state, (table) => !collapsed.has(table));
    // The tables whose rows may be written as they stand after the batch: one upsert a table.
    send([...this.rows].map(([id, entry]) => [id, entry.row] as const), (table) => collapsed.has(table));
    // A tally's rows are moved once, by the batch's netted changes, in SQL (count = count + change): nothing
    // of them is read under the lock. They carry no unique index a unit could trip.
    const tallies = new Map<PgProjectionTable, TallyChange[]>();
    for (const { table, change } of changes) listOf(tallies, table).push(change);
    for (const [table, moved] of tallies) writes.push(...table.addToTally(client, netTallyChanges(moved)));
    return writes;
  }

  private had(table: PgProjectionTable, id: string, key: Key, row: Row | null): void {
    this.rows.set(id, { table, key, row, stored: row });
  }
}

/**
 * The tables of a batch whose rows may be written once, as they stand after the batch, and still be
 * refused exactly when the units written one by one would be (a refusal redoes the batch unit by unit, so
 * refusing more only costs time; refusing less would be wrong). That holds when every state a row passes
 * through unwritten is one PostgreSQL takes on its own (`acceptsRow`), and, for a table with a unique index
 * besides its key, when none of its rows is deleted and every state of each (the stored one included) has
 * the same values in every unique index: those indexes then only gain the batch's new rows, at every step.
 */
export function collapsibleTables(
  rows: ReadonlyMap<string, { readonly table: PgProjectionTable; readonly stored: Row | null }>,
  after: readonly ReadonlyMap<string, Row | null>[],
): Set<PgProjectionTable> {
  const states = new Map<string, (Row | null)[]>();
  for (const state of after) for (const [id, row] of state) listOf(states, id).push(row);
  const refused = new Set<PgProjectionTable>();
  for (const [id, passed] of states) {
    const { table, stored } = rows.get(id)!;
    if (refused.has(table)) continue;
    const unwritten = passed.slice(0, -1);
    if (unwritten.some((row) => row !== null && !table.acceptsRow(row))) {
      refused.add(table);
      continue;
    }
    if (table.uniqueProps.length === 0) continue;
    const all = stored === null ? passed : [stored, ...passed];
    if (passed.includes(null) || !all.every((row) => table.uniqueProps.every((props) => props.every((prop) => sameValue(row![prop], all[0]![prop]))))) {
      refused.add(table);
    }
  }
  return new Set([...new Set([...rows.values()].map((entry) => entry.table))].filter((table) => !refused.has(table)));
}

const sameValue = (a: unknown, b: unknown): boolean => (a ?? null) === (b ?? null);
