import type pg from 'pg';
import { toReplayedEvent, type EventRow } from '../event-codec.js';
import type { BeforeCommit, StoredLedgerEvent, WriteTransaction } from '../event-store.js';
import type { Pending as QueuedUnit } from '../group-commit-queue.js';
import { holdsNul } from './pg-database.js';

/** The transaction a unit runs in, under the writers' lock; positions are assigned from `last + 1` on. */
export interface PgWriteTransaction extends WriteTransaction {
  readonly store: 'postgres';
  readonly client: pg.ClientBase;
  last: number;
  /** A statement sent and not awaited: the runner awaits it before the RELEASE or COMMIT, its failure failing the unit. */
  defer(statement: Promise<unknown>): void;
  /** Called once the unit is committed (never for a unit rolled back, alone or with its batch). */
  afterCommit(callback: () => void): void;
}

/** The PostgreSQL transaction of a `beforeCommit` hook; refuses another store's. */
export function postgresTransaction(tx: WriteTransaction): PgWriteTransaction {
  if (tx.store !== 'postgres') throw new Error(`a PostgreSQL hook was given a ${tx.store} transaction`);
  return tx as PgWriteTransaction;
}

/** What a unit sees: the streams it named as the log holds them under the lock, with the batch's earlier appends. */
export interface BatchView {
  /** The stream's events (only streams the unit named in `streams`). */
  history(streamId: string): readonly StoredLedgerEvent[];
  /** The stream's version (streams the unit named in `streams` or `versions`). */
  version(streamId: string): number;
  /** The global position of the log's last event, the unit's appends included. */
  readonly last: number;
  /** Adds events the unit appends (positions after `last` and after the stream's version, in order). */
  append(stored: readonly StoredLedgerEvent[]): void;
}

/**
 * One write, described once: the streams it reads (whole, or only their versions), known before it runs,
 * and a synchronous decision on them that appends through the view, whichever way its batch runs.
 */
export interface WriteUnit<T> {
  readonly streams: readonly string[];
  readonly versions: readonly string[];
  /** Decides on the view, appending through it; throws to fail alone (nothing of it written). */
  plan(view: BatchView): { readonly value: T; readonly beforeCommit?: BeforeCommit | undefined };
  /** Written, projected, then rolled back (no hook runs): the unit fails with `DryRunRollback` carrying its value. */
  readonly dryRun?: boolean;
}

/** A unit waiting for its batch, with its caller's promise. */
export type Pending = QueuedUnit<WriteUnit<unknown>>;

/** Deferred statements: their first failure in the order they were sent (later ones only say the transaction was aborted). */
export class Deferred {
  private readonly statements: Promise<{ ok: true } | { ok: false; error: unknown }>[] = [];

  readonly add = (statement: Promise<unknown>): void => {
    this.statements.push(statement.then(() => ({ ok: true }) as const, (error: unknown) => ({ ok: false, error }) as const));
  };

  /** Resolves when every one settled; throws the first failure. */
  async settle(): Promise<void> {
    const outcomes = await Promise.all(this.statements.splice(0));
    const failed = outcomes.find((outcome) => !outcome.ok);
    if (failed && !failed.ok) throw failed.error;
  }
}

export const READ_STREAMS = 'SELECT * FROM events WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, stream_position';
const READ_VERSIONS = 'SELECT stream_id, max(stream_position) AS v FROM events WHERE stream_id = ANY($1::text[]) GROUP BY stream_id';

/** Streams read whole (`streams`, their events) and streams only their versions were asked of. */
export interface StreamsRead {
  readonly streams: readonly string[];
  readonly events: readonly StoredLedgerEvent[];
  readonly versions: readonly { stream_id: string; v: number }[];
}

/** The ids of `units`' streams to read whole and only the version of, but those already read or PostgreSQL cannot hold (U+0000). */
export function streamsToRead(units: readonly WriteUnit<unknown>[], read: ReadonlySet<string> = new Set(), versioned: ReadonlySet<string> = new Set()): { streams: string[]; versioned: string[] } {
  const streams = [...new Set(units.flatMap((unit) => unit.streams))].filter((id) => !holdsNul([id]) && !read.has(id));
  const versions = [...new Set(units.flatMap((unit) => unit.versions))].filter((id) => !holdsNul([id]) && !read.has(id) && !streams.includes(id) && !versioned.has(id));
  return { streams, versioned: versions };
}

/** Sends both reads in one flight; settles when both answered. The events are read to be decided on: their metadata is parsed only if asked. */
export function readStreams(client: pg.ClientBase, streams: readonly string[], versioned: readonly string[]): Promise<StreamsRead> {
  const read = client.query<EventRow>({ name: 'ledger_batch_streams', text: READ_STREAMS, values: [streams] });
  const versions = client.query<{ stream_id: string; v: number }>({ name: 'ledger_batch_versions', text: READ_VERSIONS, values: [versioned] });
  const both = Promise.all([read, versions]).then(([events, v]) => ({ streams, events: events.rows.map(toReplayedEvent), versions: v.rows }));
  both.catch(() => undefined);
  return both;
}

/** The streams as read under the lock, with what the batch's units appended so far: what every unit is decided on. */
export class LockedView implements BatchView {
  private readonly histories = new Map<string, StoredLedgerEvent[]>();
  /** The versions of the streams only their versions were asked of. */
  private readonly versions = new Map<string, number>();
  private unit: WriteUnit<unknown> | null = null;
  private mine: StoredLedgerEvent[] = [];
  /** The unit's appends, one list per `append` (a command's events). */
  private appends: StoredLedgerEvent[][] = [];
  private lastBeforeUnit: number;

  constructor(public last: number) {
    this.lastBeforeUnit = last;
  }

  addRead({ streams, events, versions }: StreamsRead): void {
    for (const id of streams) this.histories.set(id, []);
    for (const stored of events) this.histories.get(stored.streamId)?.push(stored);
    for (const { stream_id, v } of versions) this.versions.set(stream_id, v);
  }

  *versionsRead(): Iterable<[string, number]> {
    for (const [id, history] of this.histories) yield [id, history.length];
    yield* this.versions;
  }

  startUnit(unit: WriteUnit<unknown>): void {
    this.unit = unit;
    this.mine = [];
    this.appends = [];
    this.lastBeforeUnit = this.last;
  }

  /** The unit's appends, whole and per `append`, now part of what the next units see. */
  endUnit(): { events: StoredLedgerEvent[]; appends: StoredLedgerEvent[][] } {
    for (const stored of this.mine) {
      const history = this.histories.get(stored.streamId);
      if (history) history.push(stored);
      else this.versions.set(stored.streamId, stored.streamPosition);
    }
    this.unit = null;
    return { events: this.mine, appends: this.appends };
  }

  dropUnit(): void {
    this.unit = null;
    this.mine = [];
    this.appends = [];
    this.last = this.lastBeforeUnit;
  }

  history(streamId: string): readonly StoredLedgerEvent[] {
    if (!this.unit?.streams.includes(streamId)) throw new Error(`a planned unit read stream ${streamId} it did not name`);
    const committed = this.histories.get(streamId) ?? [];
    const own = this.mine.filter((stored) => stored.streamId === streamId);
    return own.length > 0 ? [...committed, ...own] : committed;
  }

  version(streamId: string): number {
    if (!this.unit?.streams.includes(streamId) && !this.unit?.versions.includes(streamId)) {
      throw new Error(`a planned unit asked the version of stream ${streamId} it did not name`);
    }
    const own = this.mine.filter((stored) => stored.streamId === streamId);
    if (own.length > 0) return own[own.length - 1]!.streamPosition;
    // A stream whose id PostgreSQL cannot hold (U+0000) was not read: it has no events.
    return this.histories.get(streamId)?.length ?? this.versions.get(streamId) ?? 0;
  }

  append(stored: readonly StoredLedgerEvent[]): void {
    for (const event of stored) {
      if (event.globalPosition !== this.last + 1) throw new Error(`an append at global position ${event.globalPosition} after ${this.last}`);
      if (event.streamPosition !== this.version(event.streamId) + 1) throw new Error(`an append to ${event.streamId} at ${event.streamPosition} out of order`);
      this.mine.push(event);
      this.last = event.globalPosition;
    }
    if (stored.length > 0) this.appends.push([...stored]);
  }
}
