import type Database from 'better-sqlite3';
import { fillPlaceholders, type SQL, type Table } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { ListQuery, ProjectionQueries, SelectedRow, SelectFields } from '../projection-queries.js';
import { listSql, oneSql, selectedRowMapper, selectSql } from '../projection-query-sql.js';
import { rowCodecOf, type Row } from '../projection-rows.js';

/** Statements kept prepared, by SQL text; past this many the cache starts afresh (IN lists vary in length). */
const MAX_STATEMENTS = 500;

/** The read models' queries on SQLite, through statements prepared once per SQL text on the service's connection. */
export class SqliteQueryRunner implements ProjectionQueries {
  private readonly dialect = new SQLiteSyncDialect();
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly sqlite: Database.Database) {}

  async one<T extends Table>(table: T, where: SQL): Promise<T['$inferSelect'] | null> {
    return this.prepareOne(table, where)({});
  }

  prepareOne<T extends Table>(table: T, where: SQL): (params: Record<string, unknown>) => Promise<T['$inferSelect'] | null> {
    const { text, params } = this.render(oneSql(table, where));
    const codec = rowCodecOf(table);
    return async (values) => {
      const raw = this.statement(text).get(...fillPlaceholders(params, values)) as Row | undefined;
      return raw ? (codec.fromDriver(raw) as T['$inferSelect']) : null;
    };
  }

  async list<T extends Table>(table: T, query: ListQuery = {}): Promise<T['$inferSelect'][]> {
    const { text, params } = this.render(listSql(table, query));
    const codec = rowCodecOf(table);
    return (this.statement(text).all(...params) as Row[]).map((raw) => codec.fromDriver(raw) as T['$inferSelect']);
  }

  async select<F extends SelectFields>(fields: F, rest: SQL): Promise<SelectedRow<F>[]> {
    return this.prepareSelect(fields, rest)({});
  }

  prepareSelect<F extends SelectFields>(fields: F, rest: SQL): (params: Record<string, unknown>) => Promise<SelectedRow<F>[]> {
    const { text, params } = this.render(selectSql(fields, rest));
    const mapper = selectedRowMapper(fields);
    // Rows as arrays (the fields' order): no object per row from the driver.
    return async (values) => (this.statement(text, { raw: true }).all(...fillPlaceholders(params, values)) as unknown[][]).map((raw) => mapper.fromValues(raw));
  }

  private render(query: SQL): { text: string; params: unknown[] } {
    const rendered = this.dialect.sqlToQuery(query);
    return { text: rendered.sql, params: rendered.params };
  }

  /** The statement prepared for `text`; `raw` ones (rows as arrays) are kept apart, the mode being the statement's. */
  private statement(text: string, options: { raw?: boolean } = {}): Database.Statement {
    const id = options.raw ? `raw:${text}` : text;
    let statement = this.statements.get(id);
    if (!statement) {
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
      statement = this.sqlite.prepare(text);
      if (options.raw) statement.raw(true);
      this.statements.set(id, statement);
    }
    return statement;
  }
}
