import type { Table } from 'drizzle-orm';
import type { StoredEvent } from '../events/envelope.js';
import type { LedgerEvent, LedgerEventType } from '../events/registry.js';

export type StoredLedgerEvent = StoredEvent<LedgerEvent>;

/** The events of the given types. */
export type EventOf<T extends LedgerEventType> = Extract<LedgerEvent, { type: T }>;

/**
 * A row-per-key read model kept up to date inline, in the transaction that
 * appends the events. `keyOf` names the row an event touches; `evolve` is pure
 * and total (it never throws): given the current row (or null) and the event,
 * it returns the next row, or null to delete it. Both only ever see the event
 * types the projection `handles`. Bump `version` whenever `evolve` or the
 * table changes meaning, so the projection is rebuilt from the log.
 *
 * No dialect here: `table` is the canonical definition of the rows (drizzle
 * has no dialect-neutral schema, so it is written with the SQLite builders);
 * each store derives its own table from it (the SQLite store uses it as is),
 * and drizzle-kit generates each dialect's DDL from that.
 */
export interface RowProjection<TRow extends Record<string, unknown>, T extends LedgerEventType = LedgerEventType> {
  readonly name: string;
  readonly version: number;
  readonly table: Table;
  readonly handles: readonly T[];
  /**
   * True when `evolve` reads an event's bulk fields (the staged account
   * payload), which a rebuild otherwise does not read; a rebuild then reads
   * those events whole.
   */
  readonly readsElidedFields?: boolean;
  /** Set on a tally (`defineTally`): its rows are sums over another projection's rows, moved with them. */
  readonly tally?: TallySpec;
  keyOf(stored: StoredEvent<EventOf<T>>): Partial<TRow> | null;
  evolve(row: TRow | null, stored: StoredEvent<EventOf<T>>): TRow | null;
}

/**
 * Any projection, for the code that runs them (the stores): it only hands a
 * projection the events it handles, so its narrower parameter is safe.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRowProjection = RowProjection<any, any>;

/**
 * Declares a projection: the handled types are inferred as a tuple, so
 * `keyOf` and `evolve` receive exactly those events and a switch over
 * `event.type` is checked for exhaustiveness (a type added to `handles`
 * fails to compile until both handle it).
 */
export function defineProjection<TTable extends Table, const Types extends readonly LedgerEventType[]>(projection: {
  readonly name: string;
  readonly version: number;
  readonly table: TTable;
  readonly handles: Types;
  readonly readsElidedFields?: boolean;
  keyOf(stored: StoredEvent<EventOf<Types[number]>>): Partial<TTable['$inferSelect']> | null;
  evolve(row: TTable['$inferSelect'] | null, stored: StoredEvent<EventOf<Types[number]>>): TTable['$inferSelect'] | null;
}): RowProjection<TTable['$inferSelect'], Types[number]> {
  return projection;
}

/** What one source row adds to one row of a tally: the row's key and an amount per count column. */
export interface TallyContribution {
  readonly key: Record<string, unknown>;
  readonly counts: Readonly<Record<string, number>>;
}

/**
 * How a tally is kept: each of its rows holds, per count column, the sum of
 * what every row of `source` contributes to it. The stores keep it inline:
 * when an event moves a source row from `before` to `after`, they add
 * `after`'s contributions and take away `before`'s, in the same transaction,
 * so a count is read in constant time whatever the number of source rows.
 */
export interface TallySpec {
  readonly source: AnyRowProjection;
  /** The count columns (properties), each an integer. */
  readonly counts: readonly string[];
  contributions(row: Record<string, unknown>): readonly TallyContribution[];
}

/**
 * Declares a tally: a projection whose rows are sums over another
 * projection's rows (a migration's per-supplier counters). It handles the
 * source's events (so a database that has them rebuilds it) but never keys a
 * row from an event itself (`keyOf` is null): the stores move its rows with
 * the source's (src/store/tallies.ts). A rebuild of either rebuilds both.
 */
export function defineTally<TTable extends Table, TSource extends Record<string, unknown>>(tally: {
  readonly name: string;
  readonly version: number;
  readonly table: TTable;
  readonly source: RowProjection<TSource>;
  readonly counts: readonly (keyof TTable['$inferSelect'] & string)[];
  contributions(row: TSource): readonly { key: Partial<TTable['$inferSelect']>; counts: Partial<Record<keyof TTable['$inferSelect'] & string, number>> }[];
}): AnyRowProjection {
  const spec: TallySpec = {
    source: tally.source,
    counts: tally.counts,
    contributions: (row) => tally.contributions(row as TSource) as readonly TallyContribution[],
  };
  return {
    name: tally.name,
    version: tally.version,
    table: tally.table,
    handles: tally.source.handles,
    tally: spec,
    keyOf: () => null,
    evolve: (row) => row,
  } satisfies AnyRowProjection;
}
