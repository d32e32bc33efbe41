import type { Column, GetColumnData, SQL, Table } from 'drizzle-orm';

export interface ListQuery {
  readonly where?: SQL;
  readonly orderBy?: readonly SQL[];
  readonly limit?: number;
}

/** What a custom select reads: columns (mapped as their table maps them) or typed expressions (`sql<number>\`count(*)\``). */
export type SelectFields = Record<string, Column | SQL<unknown>>;

export type SelectedRow<F extends SelectFields> = {
  [K in keyof F]: F[K] extends Column ? GetColumnData<F[K]> : F[K] extends SQL<infer T> ? T : never;
};

/**
 * Reads the projection tables (a port): the read models are written once against it, with drizzle's
 * dialect-neutral `sql` template and operators (`eq`, `and`, `inArray`, ...) over the canonical tables, and
 * each store renders and runs them in its own dialect. Rows come back as the canonical row types (JSON parsed, booleans).
 */
export interface ProjectionQueries {
  /** The first row of `table` matching `where`, or null. */
  one<T extends Table>(table: T, where: SQL): Promise<T['$inferSelect'] | null>;
  /** `one` prepared once for a query run on every request: `where` uses `sql.placeholder(name)`, filled in by the result. */
  prepareOne<T extends Table>(table: T, where: SQL): (params: Record<string, unknown>) => Promise<T['$inferSelect'] | null>;
  /** The rows of `table` matching `where` (all rows without one), in `orderBy` order. */
  list<T extends Table>(table: T, query?: ListQuery): Promise<T['$inferSelect'][]>;
  /** `SELECT <fields> <rest>` (`rest` starts at FROM): a join or an aggregate, each field read under its key. */
  select<F extends SelectFields>(fields: F, rest: SQL): Promise<SelectedRow<F>[]>;
  /** `select` prepared once (placeholders in `rest`, as `prepareOne`). */
  prepareSelect<F extends SelectFields>(fields: F, rest: SQL): (params: Record<string, unknown>) => Promise<SelectedRow<F>[]>;
}
