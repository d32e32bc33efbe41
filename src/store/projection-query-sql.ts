import { Column, is, sql, type SQL, type Table } from 'drizzle-orm';
import type { ListQuery, SelectedRow, SelectFields } from './projection-queries.js';
import type { Row } from './projection-rows.js';

/** The SQL of the ProjectionQueries port, built once for every store with drizzle's dialect-neutral `sql` template. */
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

/**
 * Maps selected rows as the driver returned them to their typed shape: columns mapped as their table maps
 * them. Which field is a column is worked out once (drizzle's `is` is too slow to ask on every row of a
 * streamed list). `fromValues` takes a row as an array of values in the fields' order (a raw row).
 */
export function selectedRowMapper<F extends SelectFields>(fields: F): { fromRow(raw: Row): SelectedRow<F>; fromValues(values: readonly unknown[]): SelectedRow<F> } {
  const mapped = Object.entries(fields).map(([key, field]) => ({ key, column: is(field, Column) ? field : null }));
  const value = (column: Column | null, raw: unknown) => (raw === null || raw === undefined ? null : column ? column.mapFromDriverValue(raw) : raw);
  return {
    fromRow(raw) {
      const row: Row = {};
      for (const { key, column } of mapped) row[key] = value(column, raw[key]);
      return row as SelectedRow<F>;
    },
    fromValues(values) {
      const row: Row = {};
      for (let i = 0; i < mapped.length; i++) row[mapped[i]!.key] = value(mapped[i]!.column, values[i]);
      return row as SelectedRow<F>;
    },
  };
}
