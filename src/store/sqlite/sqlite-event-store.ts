import type Database from 'better-sqlite3';
import type { EventMetadata } from '../../../events/envelope.js';
import type { LedgerEvent } from '../../../events/registry.js';
import type { AnyRowProjection } from '../../../projections/projection.js';
import type { AnyDecider, Decider } from '../../domain/decider.js';
import { decideOnStream, DryRunRollback, type StreamSnapshot } from '../decide.js';
import { eventColumns, splitEventData, STAGED_PAYLOAD_FIELD, toReplayedEvent, toStoredEvent, type EventRow } from '../event-codec.js';
import {
  ConcurrencyError,
  type BeforeCommit,
  type EventStore,
  type HandleOptions,
  type HandleResult,
  type StoredLedgerEvent,
  type StreamCommand,
  type StreamGuard,
  type WriteOptions,
  type WriteTransaction,
} from '../event-store.js';
import { asUniqueConstraintError } from '../store-faults.js';
import { ReadAhead } from '../read-ahead.js';
import { movesReadGeneration } from '../read-generation-tables.js';
import { StreamSnapshots } from '../stream-snapshots.js';
import { GroupCommitRunner } from './group-commit.js';
import { linkTallies } from '../projection-replay.js';
import { ProjectionTable } from './projection-writer.js';

export interface SqliteEventStoreOptions {
  readonly sqlite: Database.Database;
  readonly projections: readonly AnyRowProjection[];
  readonly clock: () => Date;
  readonly newId: () => string;
  /** The connection's group-commit runner (shared with the other writers on it, such as the Idempotency-Key records). */
  readonly runner: GroupCommitRunner;
  /** The deciders' states of long streams, kept between commands; a default cache when not given. */
  readonly snapshots?: StreamSnapshots;
  /** Told of each event whose projection changes a table behind the read generation (read-generation.ts). */
  readonly onReadGenerationChange?: () => void;
}

/** How a decider's history is read: the statements, and the event types they select (every type without). */
interface StreamReads {
  readonly readStream: Database.Statement<[string], EventRow>;
  readonly readStreamAfter: Database.Statement<[string, number], EventRow>;
  readonly types?: ReadonlySet<string>;
}

/** A state a unit reached, remembered once its batch committed. */
interface Reached {
  readonly streamId: string;
  readonly decider: AnyDecider;
  readonly snapshot: StreamSnapshot<unknown>;
}

/** A `beforeCommit` hook's transaction: the connection itself, inside the unit's savepoint (synchronous). */
export interface SqliteWriteTransaction extends WriteTransaction {
  readonly store: 'sqlite';
  readonly sqlite: Database.Database;
}

/** The SQLite connection of a `beforeCommit` hook's transaction; refuses another store's. */
export function sqliteTransaction(tx: WriteTransaction): Database.Database {
  if (tx.store !== 'sqlite') throw new Error(`a SQLite hook was given a ${tx.store} transaction`);
  return (tx as SqliteWriteTransaction).sqlite;
}

/**
 * The SQLite event store: each write is one synchronous unit of work of the group commit (group-commit.ts),
 * inside `BEGIN IMMEDIATE`, so no other writer interleaves between reading a stream and appending, and no
 * request on the shared connection sees uncommitted writes.
 */
export class SqliteEventStore implements EventStore {
  private readonly projectionsByType = new Map<string, ProjectionTable[]>();
  private readonly statements;
  private readonly tx: SqliteWriteTransaction;
  private readonly snapshots: StreamSnapshots;
  private readonly readAhead = new ReadAhead(256, 64);
  /** The event types whose projections write a table behind the read generation. */
  private readonly movingReadGeneration: ReadonlySet<string>;
  /** The stream reads of deciders that fold only some event types or some keys of the staged payload, by those. */
  private readonly narrowReads = new Map<string, StreamReads>();

  constructor(private readonly options: SqliteEventStoreOptions) {
    const { sqlite } = options;
    this.snapshots = options.snapshots ?? new StreamSnapshots();
    this.tx = { store: 'sqlite', sqlite };
    const tables = options.projections.map((projection) => new ProjectionTable(sqlite, projection));
    this.movingReadGeneration = new Set(options.projections.filter(movesReadGeneration).flatMap((projection) => projection.handles));
    linkTallies(tables);
    for (const table of tables) {
      for (const type of table.projection.handles) this.projectionsByType.set(type, [...(this.projectionsByType.get(type) ?? []), table]);
    }
    this.statements = {
      readStream: sqlite.prepare<[string], EventRow>('SELECT * FROM events WHERE stream_id = ? ORDER BY stream_position'),
      readStreamAfter: sqlite.prepare<[string, number], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? AND stream_position > ? ORDER BY stream_position',
      ),
      version: sqlite.prepare<[string], { v: number | null }>('SELECT MAX(stream_position) AS v FROM events WHERE stream_id = ?'),
      insert: sqlite.prepare(
        `INSERT INTO events (stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at, bulk)
         VALUES (@streamId, @streamPosition, @type, @schemaVersion, @data, @metadata, @eventId, @recordedAt, @bulk)`,
      ),
      readAll: sqlite.prepare<[number, number], EventRow>('SELECT * FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?'),
      any: sqlite.prepare<[], { one: number }>('SELECT 1 AS one FROM events LIMIT 1'),
    };
  }

  async readStream(streamId: string): Promise<readonly StoredLedgerEvent[]> {
    const events = this.readStreamSync(streamId);
    this.readAhead.remember(streamId, events);
    return events;
  }

  async streamVersion(streamId: string): Promise<number> {
    return this.versionSync(streamId);
  }

  async readAll(after: number, limit: number): Promise<readonly StoredLedgerEvent[]> {
    return this.statements.readAll.all(after, limit).map(toStoredEvent);
  }

  async isEmpty(): Promise<boolean> {
    return this.statements.any.get() === undefined;
  }

  async appendToStream(
    streamId: string,
    expectedVersion: number,
    events: readonly LedgerEvent[],
    options: WriteOptions,
  ): Promise<readonly StoredLedgerEvent[]> {
    try {
      return await this.options.runner.run(() => {
        const appended = this.appendSync(streamId, expectedVersion, events, options.metadata);
        this.beforeCommit(options.beforeCommit, appended);
        return appended;
      });
    } catch (error) {
      throw asUniqueConstraintError(error);
    }
  }

  async handle<C, Ei extends LedgerEvent, Eo extends Ei, S>(
    streamId: string,
    decider: Decider<C, Ei, Eo, S>,
    command: C,
    options: HandleOptions,
  ): Promise<HandleResult<Eo, S>> {
    const [result] = await this.handleMany([{ streamId, decider, command }], options);
    return result!;
  }

  /** One unit of work for the runner, so all the commands commit or roll back together. */
  async handleMany<C, Ei extends LedgerEvent, Eo extends Ei, S>(
    commands: readonly StreamCommand<C, Ei, Eo, S>[],
    options: HandleOptions,
  ): Promise<HandleResult<Eo, S>[]> {
    const reached: Reached[] = [];
    const run = (): HandleResult<Eo, S>[] => {
      this.checkGuards(options.guards ?? []);
      const results = commands.map(({ streamId, decider, command }) => this.decideAndAppend(streamId, decider, command, options, reached));
      if (options.dryRun) throw new DryRunRollback(results);
      this.beforeCommit(options.beforeCommit, results.flatMap((result) => result.events));
      return results;
    };
    let results: HandleResult<Eo, S>[];
    try {
      results = await this.options.runner.run(run);
    } catch (error) {
      if (error instanceof DryRunRollback) return error.result as HandleResult<Eo, S>[];
      throw asUniqueConstraintError(error);
    }
    // The runner settles only after the COMMIT: these states hold committed events only.
    for (const { streamId, decider, snapshot } of reached) this.snapshots.remember(streamId, decider, snapshot);
    return results;
  }

  /** Runs the caller's hook inside the unit, synchronously. */
  private beforeCommit(hook: BeforeCommit | undefined, appended: readonly StoredLedgerEvent[]): void {
    if (!hook) return;
    const result = hook(appended, this.tx);
    if (result !== undefined) {
      // A promise would resolve after COMMIT (or never run inside it): refuse it rather than lose the guarantee.
      void Promise.resolve(result).catch(() => undefined);
      throw new Error('a beforeCommit hook on the SQLite store must be synchronous');
    }
  }

  /** Reads the stream (from its snapshot on, when one is kept), decides, appends and projects; the state reached goes to `reached`. */
  private decideAndAppend<C, Ei extends LedgerEvent, Eo extends Ei, S>(
    streamId: string,
    decider: Decider<C, Ei, Eo, S>,
    command: C,
    options: HandleOptions,
    reached: Reached[],
  ): HandleResult<Eo, S> {
    const snapshot = this.snapshots.get<S>(streamId, decider);
    const reads = this.readsFor(decider);
    const { history, version } = this.historyOf(streamId, reads, snapshot?.version ?? 0);
    const decision = decideOnStream(decider, history, command, snapshot, version);
    const result = decision.result(this.appendSync(streamId, decision.expectedVersion, decision.events, options.metadata));
    reached.push({ streamId, decider, snapshot: { version: result.streamVersion, state: result.state } });
    return result;
  }

  private checkGuards(guards: readonly StreamGuard[]): void {
    for (const guard of guards) {
      const actual = this.versionSync(guard.streamId);
      if (actual !== guard.expectedVersion) throw new ConcurrencyError(guard.streamId, guard.expectedVersion, actual);
    }
  }

  /**
   * The events after `after` a decider folds, and the stream's version: from what the command read ahead
   * if the stream has not moved on since, else read now. A decider's history is read for its events only:
   * their metadata is parsed if something asks for it (`toReplayedEvent`), which nothing deciding does.
   */
  private historyOf(streamId: string, reads: StreamReads, after: number): { history: readonly StoredLedgerEvent[]; version: number } {
    const { types } = reads;
    const known = after === 0 ? this.readAhead.take(streamId) : undefined;
    // A narrowed read's length is not the stream's version, nor is a read-ahead's once the stream moved on.
    const version = known !== undefined || types ? this.versionSync(streamId) : null;
    if (known !== undefined && known.length === version) return { history: types ? known.filter((stored) => types.has(stored.event.type)) : known, version };
    const rows = after === 0 ? reads.readStream.all(streamId) : reads.readStreamAfter.all(streamId, after);
    const history = rows.map(toReplayedEvent);
    return { history, version: version ?? after + history.length };
  }

  /**
   * The stream reads `decider` needs: every event, or only the types it folds (`eventTypesFolded`); with the
   * whole staged payload, or with only the keys of it the decider folds (SQLite builds that much of the bulk
   * column, so the rest is never parsed).
   */
  private readsFor(decider: AnyDecider): StreamReads {
    const keys: readonly string[] | undefined = decider.payloadKeysFolded;
    const types: readonly string[] | undefined = decider.eventTypesFolded;
    if (!keys && !types) return this.statements;
    const name = `${keys?.join(',') ?? '*'} ${types?.join(',') ?? '*'}`;
    let reads = this.narrowReads.get(name);
    if (!reads) {
      const entries = keys?.map((key) => `${sqlString(key)}, bulk -> ${sqlString(`$.${STAGED_PAYLOAD_FIELD}.${key}`)}`).join(', ');
      const columns = entries
        ? `${eventColumns(false)}, CASE WHEN bulk IS NULL THEN NULL ELSE json_object(${sqlString(STAGED_PAYLOAD_FIELD)}, json_object(${entries})) END AS bulk`
        : eventColumns(true);
      const ofTypes = types ? ` AND type IN (${types.map(sqlString).join(', ')})` : '';
      reads = {
        readStream: this.options.sqlite.prepare(`SELECT ${columns} FROM events WHERE stream_id = ?${ofTypes} ORDER BY stream_position`),
        readStreamAfter: this.options.sqlite.prepare(`SELECT ${columns} FROM events WHERE stream_id = ? AND stream_position > ?${ofTypes} ORDER BY stream_position`),
        ...(types ? { types: new Set(types) } : {}),
      };
      this.narrowReads.set(name, reads);
    }
    return reads;
  }

  private readStreamSync(streamId: string): StoredLedgerEvent[] {
    return this.statements.readStream.all(streamId).map(toStoredEvent);
  }

  private versionSync(streamId: string): number {
    return this.statements.version.get(streamId)?.v ?? 0;
  }

  private appendSync(streamId: string, expectedVersion: number, events: readonly LedgerEvent[], metadata: HandleOptions['metadata']): StoredLedgerEvent[] {
    const actual = this.versionSync(streamId);
    if (actual !== expectedVersion) throw new ConcurrencyError(streamId, expectedVersion, actual);
    const recordedAt = this.options.clock().toISOString();
    return events.map((event, index) => {
      const full: EventMetadata = { eventId: this.options.newId(), ...metadata };
      const streamPosition = expectedVersion + index + 1;
      const info = this.statements.insert.run({
        streamId,
        streamPosition,
        type: event.type,
        schemaVersion: event.version,
        ...splitEventData(event.type, event.data),
        metadata: JSON.stringify(full),
        eventId: full.eventId,
        recordedAt,
      });
      const stored: StoredLedgerEvent = {
        globalPosition: Number(info.lastInsertRowid),
        streamId,
        streamPosition,
        event,
        metadata: full,
        recordedAt,
      };
      for (const table of this.projectionsByType.get(event.type) ?? []) table.apply(stored);
      if (this.movingReadGeneration.has(event.type)) this.options.onReadGenerationChange?.();
      return stored;
    });
  }
}

/** A SQL string literal (the keys are the code's own names, never a caller's). */
const sqlString = (text: string) => `'${text.replaceAll("'", "''")}'`;
