import type Database from 'better-sqlite3';
import type { AnyRowProjection, StoredLedgerEvent } from '../../../projections/projection.js';
import { quote, RowCodec, type Key, type Row } from '../projection-rows.js';
import { evolveRow, type TableTallyChange } from '../projection-replay.js';
import { applyTallyChange } from '../tallies.js';

/** SQLite has no boolean type: booleans are stored as 0 and 1. */
const sqliteValue = (value: unknown) => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

/**
 * Reads and writes the rows of one projection synchronously, inside the SQLite unit of work, through
 * statements prepared once. `tableName` lets a rebuild write into a scratch copy of the table.
 */
export class ProjectionTable {
  private readonly codec: RowCodec;
  private readonly statements = new Map<string, Database.Statement>();
  /** Each row `load` returned, as the driver gave it: what `update` compares the next row with. */
  private readonly stored = new WeakMap<Row, Row>();
  readonly tableName: string;
  /** The tables of the tallies kept over this projection's rows (`linkTallies`). */
  tallies: readonly ProjectionTable[] = [];

  constructor(
    private readonly sqlite: Database.Database,
    readonly projection: AnyRowProjection,
    tableName?: string,
  ) {
    this.codec = new RowCodec(projection.table, sqliteValue);
    this.tableName = tableName ?? this.codec.tableName;
  }

  load(key: Key): Row | null {
    const raw = this.statement('select', key).get(...this.codec.keyValues(key)) as Row | undefined;
    if (!raw) return null;
    const row = this.codec.fromDriver(raw);
    this.stored.set(row, raw);
    return row;
  }

  insert(row: Row): void {
    this.statement('insert').run(...this.codec.rowValues(row));
  }

  /**
   * Writes only the columns whose value differs from `before` as stored (every column when `load` did not
   * read it): an UPDATE rewrites the entry of every index holding a column it sets, changed or not.
   */
  update(key: Key, before: Row, row: Row): void {
    const raw = this.stored.get(before);
    const changed: string[] = [];
    const values: unknown[] = [];
    for (const [prop, column] of this.codec.columns) {
      const value = this.codec.toDriver(column, row[prop]);
      if (raw && value === (raw[column.name] ?? null)) continue;
      changed.push(prop);
      values.push(value);
    }
    if (changed.length === 0) return;
    this.statement('update', key, changed).run(...values, ...this.codec.keyValues(key));
  }

  /** Insert or replace by primary key: for scratch tables, which have no triggers or foreign keys. */
  upsert(row: Row): void {
    this.statement('upsert').run(...this.codec.rowValues(row));
  }

  delete(key: Key): void {
    this.statement('delete', key).run(...this.codec.keyValues(key));
  }

  /** The inline path: load the row the event touches, evolve it, write the result back, then the tallies' rows it moves. */
  apply(stored: StoredLedgerEvent): void {
    const key = this.projection.keyOf(stored);
    if (!key) return;
    const row = this.load(key);
    const changes: TableTallyChange<ProjectionTable>[] = [];
    this.write(key, row, evolveRow(this, row, stored, changes));
    for (const { table, change } of changes) {
      const before = table.load(change.key);
      table.write(change.key, before, applyTallyChange(before, change));
    }
  }

  private write(key: Key, row: Row | null, next: Row | null): void {
    if (next === null) {
      if (row) this.delete(key);
    } else if (row) {
      this.update(key, row, next);
    } else {
      this.insert(next);
    }
  }

  /** The statement of `kind` by `key`'s properties; an update's sets `set` (every column when not given). */
  private statement(kind: 'select' | 'insert' | 'update' | 'upsert' | 'delete', key: Key = {}, set?: readonly string[]): Database.Statement {
    const keyProps = Object.keys(key);
    const id = `${kind}:${keyProps.join(',')}:${set?.join(',') ?? ''}`;
    let statement = this.statements.get(id);
    if (!statement) {
      statement = this.sqlite.prepare(this.sql(kind, keyProps, set));
      this.statements.set(id, statement);
    }
    return statement;
  }

  private sql(kind: string, keyProps: string[], set?: readonly string[]): string {
    const table = quote(this.tableName);
    const names = this.codec.columns.map(([, column]) => quote(column.name));
    const setNames = set ? set.map((prop) => quote(this.codec.column(prop).name)) : names;
    const where = keyProps.map((prop) => `${quote(this.codec.column(prop).name)} = ?`).join(' AND ');
    switch (kind) {
      case 'select':
        return `SELECT * FROM ${table} WHERE ${where}`;
      case 'insert':
        return `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`;
      case 'upsert':
        return `INSERT OR REPLACE INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`;
      case 'update':
        return `UPDATE ${table} SET ${setNames.map((n) => `${n} = ?`).join(', ')} WHERE ${where}`;
      default:
        return `DELETE FROM ${table} WHERE ${where}`;
    }
  }
}
