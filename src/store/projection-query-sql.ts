import { Column, is, sql, type SQL, type Table } from 'drizzle-orm';
import type { ListQuery, SelectedRow, SelectFields } from './projection-queries.js';
import type { Row } from './projection-rows.js';

/**
 * The SQL of the ProjectionQueries port, built once for every store with
 * drizzle's dialect-neutral `sql` template; each store renders it in its own
 * dialect and runs it.
 */
export const oneSql = (table: Table, where: SQL): SQL => sql`SELECT * FROM ${table} WHERE ${where} LIMIT 1`;

export function listSql(table: Table, query: ListQuery): SQL {
  const parts = [sql`SELECT * FROM ${table}`];
  if (query.where) parts.push(sql` WHERE ${query.where}`);
  if (query.orderBy?.length) parts.push(sql` ORDER BY ${sql.join([...query.orderBy], sql`, `)}`);
  if (query.limit !== undefined) parts.push(sql` LIMIT ${query.limit}`);
  return sql.join(parts);
}

export function selectSql(fields: SelectFields, rest: SQL): SQL {
  const list = sql.join(
    Object.entries(fields).map(([key, field]) => sql`${field} AS ${sql.identifier(key)}`),
    sql`, `,
  );
  return sql`SELECT ${list} ${rest}`;
}

/** A selected row as the driver returned it to its typed shape: columns mapped as their table maps them. */
export function selectedRow<F extends SelectFields>(fields: F, raw: Row): SelectedRow<F> {
  const row: Row = {};
  for (const [key, field] of Object.entries(fields)) {
    const value = raw[key];
    row[key] = value === null || value === undefined ? null : is(field, Column) ? field.mapFromDriverValue(value) : value;
  }
  return row as SelectedRow<F>;
}
