import type { LRUCache } from 'lru-cache';
import type pg from 'pg';
import type { StoredLedgerEvent } from '../event-store.js';
import type { Row } from '../projection-rows.js';
import { holdsNul } from './pg-database.js';
import { keysByTable, touches } from '../projection-replay.js';
import type { PgProjectionTable } from './pg-projection-writer.js';
import type { BatchView, WriteUnit } from './pg-write-unit.js';
import type { ReadAhead } from '../read-ahead.js';

/** Rows of one table read on a guess, by row id (null: no such row). */
export type GuessedLoad = Promise<{ table: PgProjectionTable; rows: Map<string, Row | null> }>;

/**
 * The projection rows `units` will likely touch, read behind the lock: each unit is planned once ahead on
 * its streams as last known outside the lock, its events thrown away (a guess that misses costs only the
 * flight that loads what it missed). A load PostgreSQL refuses sets `failed.prefetch`: it aborted the transaction.
 */
export function guessRows(
  client: pg.ClientBase,
  units: readonly WriteUnit<unknown>[],
  tablesOf: (type: string) => readonly PgProjectionTable[],
  known: { readonly seen: SeenVersions; readonly readAhead: ReadAhead },
  failed: { prefetch: boolean },
): GuessedLoad[] {
  const guessed: StoredLedgerEvent[] = [];
  for (const unit of units) {
    const view = new GuessView(known.seen, known.readAhead);
    try {
      unit.plan(view);
      guessed.push(...view.appended);
    } catch {
      // No guess for this unit: its rows are loaded after it is decided.
    }
  }
  if (guessed.length === 0) return [];
  return [...keysByTable(touches(tablesOf, guessed))].flatMap(([table, byId]) => {
    // A key PostgreSQL cannot hold (U+0000) is not guessed: its unit fails alone after it is decided.
    const held = [...byId.values()].filter((key) => !holdsNul(Object.values(key).filter((value): value is string => typeof value === 'string')));
    if (held.length === 0) return [];
    const load = table.loadMany(client, held).then((rows) => ({ table, rows }));
    load.catch(() => {
      failed.prefetch = true;
    });
    return [load];
  });
}

/** The guessed rows by table, `into` (several loads of one table merged). */
export async function guessedRows(
  loads: readonly GuessedLoad[],
  into = new Map<PgProjectionTable, Map<string, Row | null>>(),
): Promise<Map<PgProjectionTable, Map<string, Row | null>>> {
  for (const { table, rows } of await Promise.all(loads)) {
    const had = into.get(table);
    if (!had) into.set(table, rows);
    else for (const [id, row] of rows) had.set(id, row);
  }
  return into;
}

/** The view a unit is planned on to guess the rows it touches: its streams as known outside the lock. */
class GuessView implements BatchView {
  readonly appended: StoredLedgerEvent[] = [];
  last = 0;
  private readonly histories = new Map<string, readonly StoredLedgerEvent[]>();

  constructor(
    private readonly seen: SeenVersions,
    private readonly read: ReadAhead,
  ) {}

  /** The stream as the command read it before it was queued (process reads its account), else empty; with the guess's appends. */
  history(streamId: string): readonly StoredLedgerEvent[] {
    let history = this.histories.get(streamId);
    if (!history) this.histories.set(streamId, (history = this.read.take(streamId) ?? []));
    const own = this.appended.filter((stored) => stored.streamId === streamId);
    return own.length > 0 ? [...history, ...own] : history;
  }

  /** The guess's own appends, else the stream as read ahead, else the version last seen (a guard's stream, which rarely moves), else 0. */
  version(streamId: string): number {
    let version = this.histories.get(streamId)?.length ?? this.seen.get(streamId) ?? 0;
    for (const stored of this.appended) if (stored.streamId === streamId) version = stored.streamPosition;
    return version;
  }

  append(stored: readonly StoredLedgerEvent[]): void {
    this.appended.push(...stored);
    if (stored.length > 0) this.last = stored[stored.length - 1]!.globalPosition;
  }
}

/** Stream versions this writer last saw under the lock, the most recent kept: what guesses are planned on. */
export type SeenVersions = LRUCache<string, number>;
