import type pg from 'pg';
import type { LedgerEvent } from '../../../events/registry.js';
import type { Decider } from '../../domain/decider.js';
import { decideOnStream, DryRunRollback } from '../decide.js';
import { toStoredEvent, type EventRow } from '../event-codec.js';
import {
  ConcurrencyError,
  type EventStore,
  type HandleOptions,
  type HandleResult,
  type StoredLedgerEvent,
  type StreamCommand,
  type WriteOptions,
} from '../event-store.js';
import { asUniqueConstraintError } from '../store-faults.js';
import { holdsNul } from './pg-database.js';
import { storedEvents } from './pg-event-rows.js';
import type { PgGroupCommitRunner } from './pg-group-commit.js';

export interface PgEventStoreOptions {
  /** Reads outside the write lock. */
  readonly pool: pg.Pool;
  readonly runner: PgGroupCommitRunner;
  readonly clock: () => Date;
  readonly newId: () => string;
}

const READ_STREAM = 'SELECT * FROM events WHERE stream_id = $1 ORDER BY stream_position';
const VERSION = 'SELECT coalesce(max(stream_position), 0) AS v FROM events WHERE stream_id = $1';

/**
 * The PostgreSQL event store: SQLite's semantics on a database several instances share. Each write is one
 * unit for the group commit (pg-group-commit.ts): the streams it reads and its decision on them.
 */
export class PgEventStore implements EventStore {
  constructor(private readonly options: PgEventStoreOptions) {}

  async readStream(streamId: string): Promise<readonly StoredLedgerEvent[]> {
    if (holdsNul([streamId])) return [];
    const { rows } = await this.options.pool.query<EventRow>({ name: 'ledger_read_stream', text: READ_STREAM, values: [streamId] });
    const events = rows.map(toStoredEvent);
    // A command that reads its stream before it writes (process) has its rows guessed from it.
    this.options.runner.readAhead.remember(streamId, events);
    return events;
  }

  async streamVersion(streamId: string): Promise<number> {
    if (holdsNul([streamId])) return 0;
    const { rows } = await this.options.pool.query<{ v: number }>(VERSION, [streamId]);
    return rows[0]?.v ?? 0;
  }

  async readAll(after: number, limit: number): Promise<readonly StoredLedgerEvent[]> {
    const { rows } = await this.options.pool.query<EventRow>('SELECT * FROM events WHERE global_position > $1 ORDER BY global_position LIMIT $2', [after, limit]);
    return rows.map(toStoredEvent);
  }

  async isEmpty(): Promise<boolean> {
    const { rows } = await this.options.pool.query('SELECT 1 FROM events LIMIT 1');
    return rows.length === 0;
  }

  async appendToStream(streamId: string, expectedVersion: number, events: readonly LedgerEvent[], options: WriteOptions): Promise<readonly StoredLedgerEvent[]> {
    try {
      return await this.options.runner.run({
        streams: [],
        versions: [streamId],
        plan: (view) => {
          const actual = view.version(streamId);
          if (actual !== expectedVersion) throw new ConcurrencyError(streamId, expectedVersion, actual);
          const stored = this.stored(streamId, expectedVersion, view.last, events, options.metadata);
          view.append(stored);
          return { value: stored, beforeCommit: options.beforeCommit };
        },
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

  async handleMany<C, Ei extends LedgerEvent, Eo extends Ei, S>(
    commands: readonly StreamCommand<C, Ei, Eo, S>[],
    options: HandleOptions,
  ): Promise<HandleResult<Eo, S>[]> {
    const guards = options.guards ?? [];
    try {
      return await this.options.runner.run({
        streams: commands.map((c) => c.streamId),
        versions: guards.map((g) => g.streamId),
        plan: (view) => {
          for (const guard of guards) {
            const actual = view.version(guard.streamId);
            if (actual !== guard.expectedVersion) throw new ConcurrencyError(guard.streamId, guard.expectedVersion, actual);
          }
          const results = commands.map(({ streamId, decider, command }) => {
            const decision = decideOnStream(decider, view.history(streamId), command);
            const stored = this.stored(streamId, decision.expectedVersion, view.last, decision.events, options.metadata);
            view.append(stored);
            return decision.result(stored);
          });
          return { value: results, beforeCommit: options.beforeCommit };
        },
        // A dry run is written, projected and rolled back: the writer runs it unit by unit.
        dryRun: options.dryRun === true,
      });
    } catch (error) {
      if (error instanceof DryRunRollback) return error.result as HandleResult<Eo, S>[];
      throw asUniqueConstraintError(error);
    }
  }

  private stored(streamId: string, streamVersion: number, last: number, events: readonly LedgerEvent[], metadata: HandleOptions['metadata']): StoredLedgerEvent[] {
    return storedEvents(streamId, streamVersion, last, events, metadata, this.options.clock().toISOString(), this.options.newId);
  }
}
