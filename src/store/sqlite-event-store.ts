import type Database from 'better-sqlite3';
import type { CommandMetadata, EventMetadata, StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { AnyRowProjection, StoredLedgerEvent } from '../../projections/projection.js';
import type { Decider } from './decider.js';
import { splitEventData, toStoredEvent, type EventRow } from './event-stream.js';
import { GroupCommitRunner } from './group-commit.js';
import { ProjectionTable } from './projection-writer.js';
import {
  ConcurrencyError,
  type EventStore,
  type HandleOptions,
  type HandleResult,
  type StreamCommand,
  type StreamGuard,
} from './event-store.js';


export interface SqliteEventStoreOptions {
  readonly sqlite: Database.Database;
  readonly projections: readonly AnyRowProjection[];
  readonly clock: () => Date;
  readonly newId: () => string;
  /** Most commands committed in one group-commit transaction. */
  readonly maxBatch?: number;
  /**
   * Called when a unit of work is submitted, in the caller's (async) context.
   * The function it returns, if any, runs inside the unit's savepoint right
   * after the unit appended its events (never for a dry run), so whatever it
   * writes commits or rolls back with them (Idempotency-Key records).
   */
  readonly unitOfWorkHook?: () => UnitOfWorkHook | undefined;
}

/** Runs inside a unit of work, after its events were appended: see `SqliteEventStoreOptions.unitOfWorkHook`. */
export type UnitOfWorkHook = (appended: readonly StoredEvent<LedgerEvent>[]) => void;

/** Thrown inside a dry-run transaction to roll it back while carrying the result out. */
class DryRunRollback {
  constructor(readonly result: unknown) {}
}

/**
 * SQLite event store. better-sqlite3 is synchronous, so each command runs as
 * one synchronous unit of work inside a `BEGIN IMMEDIATE` transaction: no
 * other writer (request or process) can interleave between reading the stream
 * and appending. Commands arriving together share one transaction and one
 * fsync (group commit, see group-commit.ts), each in its own savepoint.
 */
export class SqliteEventStore implements EventStore {
  private readonly sqlite: Database.Database;
  private readonly clock: () => Date;
  private readonly newId: () => string;
  private readonly projectionsByType = new Map<string, ProjectionTable[]>();
  private readonly runner: GroupCommitRunner;
  private readonly statements;
  private readonly unitOfWorkHook: () => UnitOfWorkHook | undefined;

  constructor(options: SqliteEventStoreOptions) {
    this.sqlite = options.sqlite;
    this.unitOfWorkHook = options.unitOfWorkHook ?? (() => undefined);
    this.clock = options.clock;
    this.newId = options.newId;
    this.runner = new GroupCommitRunner(this.sqlite, { maxBatch: options.maxBatch });
    for (const projection of options.projections) {
      const table = new ProjectionTable(this.sqlite, projection);
      for (const type of projection.handles) {
        const list = this.projectionsByType.get(type) ?? [];
        list.push(table);
        this.projectionsByType.set(type, list);
      }
    }
    this.statements = {
      readStream: this.sqlite.prepare<[string], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? ORDER BY stream_position',
      ),
      version: this.sqlite.prepare<[string], { v: number | null }>(
        'SELECT MAX(stream_position) AS v FROM events WHERE stream_id = ?',
      ),
      insert: this.sqlite.prepare(
        `INSERT INTO events (stream_id, stream_position, type, schema_version, data, metadata, event_id, recorded_at, bulk)
         VALUES (@streamId, @streamPosition, @type, @schemaVersion, @data, @metadata, @eventId, @recordedAt, @bulk)`,
      ),
      readAll: this.sqlite.prepare<[number, number], EventRow>(
        'SELECT * FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?',
      ),
      any: this.sqlite.prepare<[], { one: number }>('SELECT 1 AS one FROM events LIMIT 1'),
    };
  }

  async readStream(streamId: string): Promise<readonly StoredEvent<LedgerEvent>[]> {
    return this.readStreamSync(streamId);
  }

  async streamVersion(streamId: string): Promise<number> {
    return this.versionSync(streamId);
  }

  async readAll(after: number, limit: number): Promise<readonly StoredEvent<LedgerEvent>[]> {
    return this.statements.readAll.all(after, limit).map(toStoredEvent);
  }

  async isEmpty(): Promise<boolean> {
    return this.statements.any.get() === undefined;
  }

  async appendToStream(
    streamId: string,
    expectedVersion: number,
    events: readonly LedgerEvent[],
    metadata: CommandMetadata,
  ): Promise<readonly StoredEvent<LedgerEvent>[]> {
    const hook = this.unitOfWorkHook();
    return this.runner.run(() => {
      const appended = this.appendSync(streamId, expectedVersion, events, metadata);
      hook?.(appended);
      return appended;
    });
  }

  async handle<C, E extends LedgerEvent, S>(
    streamId: string,
    decider: Decider<C, E, S>,
    command: C,
    options: HandleOptions,
  ): Promise<HandleResult<E, S>> {
    const [result] = await this.handleMany([{ streamId, decider, command }], options);
    return result!;
  }


  /** One unit of work for the runner, so all the commands commit or roll back together. */
  async handleMany<C, E extends LedgerEvent, S>(
    commands: readonly StreamCommand<C, E, S>[],
    options: HandleOptions,
  ): Promise<HandleResult<E, S>[]> {
    const hook = this.unitOfWorkHook();
    const run = (): HandleResult<E, S>[] => {
      this.checkGuards(options.guards ?? []);
      const results = commands.map(({ streamId, decider, command }) => this.decideAndAppend(streamId, decider, command, options));
      if (options.dryRun) throw new DryRunRollback(results);
      hook?.(results.flatMap((result) => result.events));
      return results;
    };
    try {
      return await this.runner.run(run);
    } catch (error) {
      if (error instanceof DryRunRollback) return error.result as HandleResult<E, S>[];
      throw error;
    }
  }

  /** Read the stream, fold, decide, append and project: must run inside a unit of work. */
  private decideAndAppend<C, E extends LedgerEvent, S>(
    streamId: string,
    decider: Decider<C, E, S>,
    command: C,
    options: HandleOptions,
  ): HandleResult<E, S> {
    const history = this.readStreamSync(streamId).map((stored) => stored.event as E);
    const state = history.reduce((s, e) => decider.evolve(s, e), decider.initialState);
    const newEvents = decider.decide(command, state);
    const stored = this.appendSync(streamId, history.length, newEvents, options.metadata) as StoredEvent<E>[];
    const next = newEvents.reduce((s, e) => decider.evolve(s, e), state);
    return { events: stored, state: next, streamVersion: history.length + newEvents.length };
  }


  private checkGuards(guards: readonly StreamGuard[]): void {
    for (const guard of guards) {
      const actual = this.versionSync(guard.streamId);
      if (actual !== guard.expectedVersion) throw new ConcurrencyError(guard.streamId, guard.expectedVersion, actual);
    }
  }

  private readStreamSync(streamId: string): StoredEvent<LedgerEvent>[] {
    return this.statements.readStream.all(streamId).map(toStoredEvent);
  }

  private versionSync(streamId: string): number {
    return this.statements.version.get(streamId)?.v ?? 0;
  }

  /** Must run inside a transaction. */
  private appendSync(
    streamId: string,
    expectedVersion: number,
    events: readonly LedgerEvent[],
    metadata: CommandMetadata,
  ): StoredEvent<LedgerEvent>[] {
    const actual = this.versionSync(streamId);
    if (actual !== expectedVersion) throw new ConcurrencyError(streamId, expectedVersion, actual);
    const recordedAt = this.clock().toISOString();
    return events.map((event, index) => {
      const full: EventMetadata = { eventId: this.newId(), ...metadata };
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
      this.project(stored);
      return stored;
    });
  }

  private project(stored: StoredLedgerEvent): void {
    for (const table of this.projectionsByType.get(stored.event.type) ?? []) table.apply(stored);
  }
}

