import { getTableColumns, getTableName, type Column, type Table } from 'drizzle-orm';

export type Row = Record<string, unknown>;
export type Key = Record<string, unknown>;

/** A table or column name as an SQL identifier (both dialects). */
export const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The rows of one canonical table as every store reads and writes them (so they read back the same on
 * all): drizzle's column mappings convert values, keyed by column name on the database side, by property on ours.
 */
export class RowCodec {
  readonly tableName: string;
  /** [property, column], in the table's column order. */
  readonly columns: readonly (readonly [string, Column])[];
  private readonly byProp: Map<string, Column>;

  constructor(
    table: Table,
    /** How the driver takes a mapped value (SQLite stores booleans as 0/1). */
    private readonly driverValue: (value: unknown) => unknown = (value) => value,
  ) {
    this.tableName = getTableName(table);
    this.columns = Object.entries(getTableColumns(table));
    this.byProp = new Map(this.columns);
  }

  column(prop: string): Column {
    const column = this.byProp.get(prop);
    if (!column) throw new Error(`table ${this.tableName}: unknown column ${prop}`);
    return column;
  }

  toDriver(column: Column, value: unknown): unknown {
    if (value === null || value === undefined) return null;
    return this.driverValue(column.mapToDriverValue(value));
  }

  /** The key's values, in the key's property order. */
  keyValues(key: Key): unknown[] {
    return Object.entries(key).map(([prop, value]) => this.toDriver(this.column(prop), value));
  }

  /** Every column's value of `row`, in column order. */
  rowValues(row: Row): unknown[] {
    return this.columns.map(([prop, column]) => this.toDriver(column, row[prop]));
  }

  /** A row as the driver returned it (keyed by column name) to the canonical row type. */
  fromDriver(raw: Row): Row {
    const row: Row = {};
    for (const [prop, column] of this.columns) {
      const value = raw[column.name];
      row[prop] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row;
  }
}

/** The cache key of a projection row: each key value behind its type and length, so no two keys share one, cheaper than JSON. */
export function rowCacheId(tableName: string, key: Key): string {
  let id = tableName;
  for (const value of Object.values(key)) {
    const text = String(value);
    id += `\u0000${typeof value}${text.length}:${text}`;
  }
  return id;
}

const codecs = new WeakMap<Table, RowCodec>();

/** The default codec of a table (the read side of every store), made once. */
export function rowCodecOf(table: Table): RowCodec {
  let codec = codecs.get(table);
  if (!codec) {
    codec = new RowCodec(table);
    codecs.set(table, codec);
  }
  return codec;
}
