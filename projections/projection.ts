import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { StoredEvent } from '../events/envelope.js';
import type { LedgerEvent, LedgerEventType } from '../events/registry.js';

export type StoredLedgerEvent = StoredEvent<LedgerEvent>;

/**
 * A row-per-key read model kept up to date inline, in the transaction that
 * appends the events. `keyOf` names the row an event touches; `evolve` is pure
 * and total (it never throws): given the current row (or null) and the event,
 * it returns the next row, or null to delete it. Bump `version` whenever
 * `evolve` or the table changes meaning, so the projection is rebuilt from the log.
 */
export interface RowProjection<TTable extends SQLiteTable, TRow extends Record<string, unknown>> {
  readonly name: string;
  readonly version: number;
  readonly table: TTable;
  readonly handles: readonly LedgerEventType[];
  /**
   * True when `evolve` reads a field a rebuild may elide (see
   * `elidableEventFields`, e.g. the staged account payload); a rebuild then
   * reads those events whole.
   */
  readonly readsElidedFields?: boolean;
  keyOf(event: StoredLedgerEvent): Partial<TRow> | null;
  evolve(row: TRow | null, event: StoredLedgerEvent): TRow | null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRowProjection = RowProjection<any, any>;

export function defineProjection<TTable extends SQLiteTable, TRow extends Record<string, unknown>>(
  projection: RowProjection<TTable, TRow>,
): RowProjection<TTable, TRow> {
  return projection;
}
