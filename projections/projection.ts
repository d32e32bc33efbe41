import type { Table } from 'drizzle-orm';
import type { StoredEvent } from '../events/envelope.js';
import type { LedgerEvent, LedgerEventType } from '../events/registry.js';

export type StoredLedgerEvent = StoredEvent<LedgerEvent>;

/** The events of the given types. */
type EventOf<T extends LedgerEventType> = Extract<LedgerEvent, { type: T }>;

/**
 * A row-per-key read model kept up to date inline, in the transaction that appends the events. `keyOf`
 * names the row an event touches; `evolve` is pure and total (it never throws): given the current row (or
 * null) and the event, it returns the next row, or null to delete it. Both only ever see the event types the
 * projection `handles`. Bump `version` whenever `evolve` or the table changes meaning, so the projection is
 * rebuilt from the log.
 *
 * No dialect here: `table` is the canonical definition of the rows (drizzle has no dialect-neutral schema,
 * so it is written with the SQLite builders); each store derives its own table from it, and drizzle-kit
 * generates each dialect's DDL from that.
 */
export interface RowProjection<TRow extends Record<string, unknown>, T extends LedgerEventType = LedgerEventType> {
  readonly name: string;
  readonly version: number;
  readonly table: Table;
  readonly handles: readonly T[];
  /** Set on a tally (`defineTally`): its rows are sums over another projection's rows, moved with them. */
  readonly tally?: TallySpec;
  keyOf(stored: StoredEvent<EventOf<T>>): Partial<TRow> | null;
  evolve(row: TRow | null, stored: StoredEvent<EventOf<T>>): TRow | null;
}

/** Any projection, for the stores that run them: they hand a projection only the events it handles. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRowProjection = RowProjection<any, any>;

type RowOf<TTable extends Table> = TTable['$inferSelect'];

/**
 * Declares a projection over `table` with one `evolve` handler per event type it handles: the handled types
 * are the handlers' keys, so each handler receives exactly its event and `keyOf` the union of them. Curried
 * so that the row type is fixed before the handlers are checked: their literal fields (a status) stay literal.
 */
export function defineProjection<TTable extends Table>(table: TTable) {
  type Row = RowOf<TTable>;
  return <const Types extends LedgerEventType>(projection: {
    readonly name: string;
    readonly version: number;
    keyOf(stored: StoredEvent<EventOf<Types>>): Partial<Row> | null;
    readonly evolve: { readonly [K in Types]: (row: Row | null, stored: StoredEvent<EventOf<K>>) => Row | null };
  }): RowProjection<Row, Types> => {
    const { evolve: handlers, ...rest } = projection;
    type Handler = (row: Row | null, stored: StoredEvent<EventOf<Types>>) => Row | null;
    return {
      ...rest,
      table,
      handles: Object.keys(handlers) as Types[],
      evolve: (row, stored) => (handlers[stored.event.type as Types] as Handler)(row, stored),
    };
  };
}

/**
 * The key of the row of one import account, for the projections keyed by it. A row names the two fields
 * rather than spread this: an object built from a spread and more fields is a slow build on every write
 * (the profile of `bench/cpu-per-request.ts --profile`).
 */
export const accountKey = (data: { importSupplier: string; externalAccountNumber: string }) => ({
  importSupplier: data.importSupplier,
  externalAccountNumber: data.externalAccountNumber,
});

/** What one source row adds to one row of a tally: the row's key and an amount per count column. */
export interface TallyContribution {
  readonly key: Record<string, unknown>;
  readonly counts: Readonly<Record<string, number>>;
}

/**
 * How a tally is kept: each of its rows holds, per count column, the sum of what every row of `source`
 * contributes to it. When an event moves a source row from `before` to `after`, the stores add `after`'s
 * contributions and take away `before`'s in the same transaction, so a count is read in constant time
 * whatever the number of source rows.
 */
export interface TallySpec {
  readonly source: AnyRowProjection;
  /** The count columns (properties), each an integer. */
  readonly counts: readonly string[];
  contributions(row: Record<string, unknown>): readonly TallyContribution[];
}

/**
 * Declares a tally: a projection whose rows are sums over another projection's rows. It handles the
 * source's events (so a database that has them rebuilds it) but never keys a row from an event itself: the
 * stores move its rows with the source's (src/store/tallies.ts). A rebuild of either rebuilds both.
 */
export function defineTally<TTable extends Table, TSource extends Record<string, unknown>>(tally: {
  readonly name: string;
  readonly version: number;
  readonly table: TTable;
  readonly source: RowProjection<TSource>;
  readonly counts: readonly (keyof RowOf<TTable> & string)[];
  contributions(row: TSource): readonly { key: Partial<RowOf<TTable>>; counts: Partial<Record<keyof RowOf<TTable> & string, number>> }[];
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
