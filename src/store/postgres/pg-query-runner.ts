import { fillPlaceholders, type SQL, type Table } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { holdsNul, statementName } from './pg-database.js';
import type { ListQuery, ProjectionQueries, SelectedRow, SelectFields } from '../projection-queries.js';
import { listSql, oneSql, selectedRowMapper, selectSql } from '../projection-query-sql.js';
import { rowCodecOf, type Row } from '../projection-rows.js';

/** The read models' queries on PostgreSQL, on the read pool; prepared ones are named statements, parsed once per connection. */
export class PgQueryRunner implements ProjectionQueries {
  private readonly dialect = new PgDialect();

  constructor(private readonly pool: pg.Pool) {}

  async one<T extends Table>(table: T, where: SQL): Promise<T['$inferSelect'] | null> {
    const { text, params } = this.render(oneSql(table, where));
    return this.first(table, await this.rows(text, params));
  }

  prepareOne<T extends Table>(table: T, where: SQL): (params: Record<string, unknown>) => Promise<T['$inferSelect'] | null> {
    const { text, params } = this.render(oneSql(table, where));
    const name = statementName(text);
    return async (values) => this.first(table, await this.rows(text, fillPlaceholders(params, values), name));
  }

  async list<T extends Table>(table: T, query: ListQuery = {}): Promise<T['$inferSelect'][]> {
    const { text, params } = this.render(listSql(table, query));
    const codec = rowCodecOf(table);
    return (await this.rows(text, params)).map((raw) => codec.fromDriver(raw) as T['$inferSelect']);
  }

  async select<F extends SelectFields>(fields: F, rest: SQL): Promise<SelectedRow<F>[]> {
    const { text, params } = this.render(selectSql(fields, rest));
    const mapper = selectedRowMapper(fields);
    return (await this.rows(text, params)).map((raw) => mapper.fromRow(raw));
  }

  prepareSelect<F extends SelectFields>(fields: F, rest: SQL): (params: Record<string, unknown>) => Promise<SelectedRow<F>[]> {
    const { text, params } = this.render(selectSql(fields, rest));
    const name = statementName(text);
    const mapper = selectedRowMapper(fields);
    return async (values) => (await this.rows(text, fillPlaceholders(params, values), name)).map((raw) => mapper.fromRow(raw));
  }

  private first<T extends Table>(table: T, rows: Row[]): T['$inferSelect'] | null {
    return rows[0] ? (rowCodecOf(table).fromDriver(rows[0]) as T['$inferSelect']) : null;
  }

  private async rows(text: string, values: unknown[], name?: string): Promise<Row[]> {
    if (holdsNul(values)) return [];
    return (await this.pool.query<Row>(name ? { name, text, values } : { text, values })).rows;
  }

  private render(query: SQL): { text: string; params: unknown[] } {
    const rendered = this.dialect.sqlToQuery(query);
    return { text: rendered.sql, params: rendered.params };
  }
}
