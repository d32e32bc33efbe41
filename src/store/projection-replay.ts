import type { AnyRowProjection, StoredLedgerEvent } from '../../projections/projection.js';
import { op, type Op, type Procedure } from './procedure.js';
import { rowCacheId, type Key, type Row } from './projection-rows.js';
import { applyTallyChange, tallyChanges, type TallyChange } from './tallies.js';

/** A store's writer of one projection table, with the writers of the tallies kept over its rows (`linkTallies`). */
export interface LinkedTable<T> {
  readonly projection: AnyRowProjection;
  readonly tableName: string;
  tallies: readonly T[];
}

/** Hands each table the tables of the tallies kept over its rows (among `tables`). */
export function linkTallies<T extends LinkedTable<T>>(tables: readonly T[]): void {
  for (const table of tables) table.tallies = tables.filter((t) => t.projection.tally?.source === table.projection);
}

/** A row an event touches: its table, its key and row id, and the event. */
export interface RowTouch<T> {
  readonly table: T;
  readonly key: Key;
  readonly id: string;
  readonly stored: StoredLedgerEvent;
}

/** The rows the events touch through `tablesOf` their type, in log order. */
export function* touches<T extends LinkedTable<T>>(tablesOf: (type: string) => readonly T[], events: readonly StoredLedgerEvent[]): Generator<RowTouch<T>> {
  for (const stored of events) {
    for (const table of tablesOf(stored.event.type)) {
      const key = table.projection.keyOf(stored);
      if (key) yield { table, key, id: rowCacheId(table.tableName, key), stored };
    }
  }
}

/** The keys of `rows` by row id, by table. */
export function keysByTable<T>(rows: Iterable<{ readonly table: T; readonly key: Key; readonly id: string }>): Map<T, Map<string, Key>> {
  const keys = new Map<T, Map<string, Key>>();
  for (const { table, key, id } of rows) keys.set(table, (keys.get(table) ?? new Map<string, Key>()).set(id, key));
  return keys;
}

/** A tally's row moved by a source row's change. */
export interface TableTallyChange<T> {
  readonly table: T;
  readonly change: TallyChange;
}

/** `row` (of `table`) evolved through `stored`; the changes it makes to the tallies over it go to `changes`. */
export function evolveRow<T extends LinkedTable<T>>(table: T, row: Row | null, stored: StoredLedgerEvent, changes: TableTallyChange<T>[]): Row | null {
  const next = table.projection.evolve(row, stored) as Row | null;
  for (const tally of table.tallies) for (const change of tallyChanges(tally.projection, row, next)) changes.push({ table: tally, change });
  return next;
}

/** How a store reads and writes a replay's rows (synchronously on SQLite, awaited on PostgreSQL). */
export interface ReplayRows<T> {
  loadMany(table: T, keys: readonly Key[]): Op<ReadonlyMap<string, Row | null>>;
  upsertMany(table: T, rows: readonly Row[]): Op<unknown>;
  delete(table: T, key: Key): Op<unknown>;
}

interface CachedRow<T> {
  readonly table: T;
  readonly key: Key;
  row: Row | null;
  dirty: boolean;
  existed: boolean;
}

/**
 * The rows a replay changes, kept in memory while events evolve them and written once per flush: one
 * statement per row per flush instead of two per event. A batch of events has the rows it touches
 * loaded first, one read per table (round trips dominate on PostgreSQL). Bounded: past `maxRows` the
 * cache is emptied at a flush.
 */
export class ReplayCache<T extends LinkedTable<T>> {
  private readonly rows = new Map<string, CachedRow<T>>();
  private readonly byType = new Map<string, T[]>();

  constructor(
    tables: readonly T[],
    private readonly io: ReplayRows<T>,
    private readonly maxRows: number,
  ) {
    for (const table of tables) for (const type of table.projection.handles) listOf(this.byType, type).push(table);
  }

  /** Evolves the rows through `events`; with `flush`, then writes every changed row. */
  *apply(events: readonly StoredLedgerEvent[], flush: boolean): Procedure<void> {
    const touched = [...touches((type) => this.byType.get(type) ?? [], events)];
    yield* this.load(keysByTable(touched));
    const changes: TableTallyChange<T>[] = [];
    for (const { table, id, stored } of touched) {
      const entry = this.rows.get(id)!;
      entry.row = evolveRow(table, entry.row, stored, changes);
      entry.dirty = true;
    }
    // The tallies' rows are known once the source rows have moved.
    const moved = changes.map(({ table, change }) => ({ table, key: change.key, id: rowCacheId(table.tableName, change.key), change }));
    yield* this.load(keysByTable(moved));
    for (const { id, change } of moved) {
      const entry = this.rows.get(id)!;
      entry.row = applyTallyChange(entry.row, change);
      entry.dirty = true;
    }
    if (flush) yield* this.flush();
  }

  private *flush(): Procedure<void> {
    const upserts = new Map<T, Row[]>();
    for (const entry of this.rows.values()) {
      if (!entry.dirty) continue;
      if (entry.row !== null) listOf(upserts, entry.table).push(entry.row);
      else if (entry.existed) yield* op(this.io.delete(entry.table, entry.key));
      entry.existed = entry.row !== null;
      entry.dirty = false;
    }
    for (const [table, rows] of upserts) yield* op(this.io.upsertMany(table, rows));
    if (this.rows.size > this.maxRows) this.rows.clear();
  }

  /** Forgets every row: after a rolled-back transaction, the tables are the truth again. */
  clear(): void {
    this.rows.clear();
  }

  private *load(keys: ReadonlyMap<T, ReadonlyMap<string, Key>>): Procedure<void> {
    for (const [table, byId] of keys) {
      const missing = [...byId].filter(([id]) => !this.rows.has(id));
      if (missing.length === 0) continue;
      const found = yield* op(this.io.loadMany(table, missing.map(([, key]) => key)));
      for (const [id, key] of missing) {
        const row = found.get(id) ?? null;
        this.rows.set(id, { table, key, row, dirty: false, existed: row !== null });
      }
    }
  }
}

/** The list `map` holds under `key`, a new one if none. */
export function listOf<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}
