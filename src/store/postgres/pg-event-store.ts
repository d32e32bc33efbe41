import type pg from 'pg';
import type { LedgerEvent } from '../../../events/registry.js';
import type { AnyRowProjection } from '../../../projections/projection.js';
import type { Decider } from '../../domain/decider.js';
import { decideOnStream, DryRunRollback } from '../decide.js';
import { toStoredEvent, type EventRow } from '../event-codec.js';
import { insertEvents, storedEvents } from './pg-event-rows.js';
import {
  ConcurrencyError,
  UniqueConstraintError,
  type BeforeCommit,
  type EventStore,
  type HandleOptions,
  type HandleResult,
  type StoredLedgerEvent,
  type StreamCommand,
  type StreamGuard,
  type WriteOptions,
} from '../event-store.js';
import { holdsNul, sqlState } from './pg-database.js';
import type { PgGroupCommitRunner, PgWriteTransaction } from './pg-group-commit.js';
import { linkTallies, PgProjectionTable, projectBatch } from './pg-projection-writer.js';

export interface PgEventStoreOptions {
  /** Reads outside the write lock. */
  readonly pool: pg.Pool;
  readonly runner: PgGroupCommitRunner;
  readonly projections: readonly AnyRowProjection[];
  readonly clock: () => Date;
  readonly newId: () => string;
}

const READ_STREAM = 'SELECT * FROM events WHERE stream_id = $1 ORDER BY stream_position';
const VERSION = 'SELECT coalesce(max(stream_position), 0) AS v FROM events WHERE stream_id = $1';

/** PostgreSQL's unique violations as the port's error; anything else as it is. */
function translated(error: unknown): unknown {
  if (sqlState(error) === '23505') return new UniqueConstraintError((error as Error).message, { cause: error });
  return error;
}


/**
 * The PostgreSQL event store: SQLite's semantics on a database several
 * instances share. Every unit of work runs on the writer connection under the
 * writers' advisory lock (see pg-group-commit.ts), reads its streams there,
 * decides, inserts its events with positions assigned under the lock, updates
 * the inline projections and runs `beforeCommit`, in its own savepoint.
 * Event data, metadata and bulk fields are stored as text: the exact bytes.
 */
export class PgEventStore implements EventStore {
  private readonly projectionsByType = new Map<string, PgProjectionTable[]>();

  constructor(private readonly options: PgEventStoreOptions) {
    const tables = options.projections.map((projection) => new PgProjectionTable(projection));
    linkTallies(tables);
    for (const table of tables) {
      for (const type of table.projection.handles) this.projectionsByType.set(type, [...(this.projectionsByType.get(type) ?? []), table]);
    }
  }

  async readStream(streamId: string): Promise<readonly StoredLedgerEvent[]> {
    const events = await readStream(this.options.pool, streamId);
    // A command that reads its stream before it writes (process) has its rows guessed from it.
    this.options.runner.readAhead.remember(streamId, events);
    return events;
  }

  async streamVersion(streamId: string): Promise<number> {
    return version(this.options.pool, streamId);
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
      return await this.options.runner.runPlanned({
        streams: [],
        versions: [streamId],
        plan: (view) => {
          const actual = view.version(streamId);
          if (actual !== expectedVersion) throw new ConcurrencyError(streamId, expectedVersion, actual);
          const stored = this.stored(streamId, expectedVersion, view.last, events, options.metadata);
          view.append(stored);
          return { value: stored, beforeCommit: options.beforeCommit };
        },
        work: async (tx) => {
          const appended = await this.append(tx, streamId, expectedVersion, events, options.metadata);
          await runHook(options.beforeCommit, appended, tx);
          return appended;
        },
      });
    } catch (error) {
      throw translated(error);
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
    const work = async (tx: PgWriteTransaction) => {
      // The guards and the first stream go out in one flight (the writer connection pipelines).
      const first = commands[0] ? readStream(tx.client, commands[0].streamId) : null;
      first?.catch(() => undefined); // a failed guard check is the error to report
      await checkGuards(tx.client, options.guards ?? []);
      const results: HandleResult<Eo, S>[] = [];
      for (const [i, { streamId, decider, command }] of commands.entries()) {
        const history = i === 0 && first ? await first : await readStream(tx.client, streamId);
        results.push(await this.decideAndAppend(tx, streamId, history, decider, command, options));
      }
      if (options.dryRun) throw new DryRunRollback(results);
      await runHook(
        options.beforeCommit,
        results.flatMap((result) => result.events),
        tx,
      );
      return results;
    };
    try {
      // A dry run rolls its unit back: it runs on the per-unit path only.
      if (options.dryRun) return await this.options.runner.run(work);
      const guards = options.guards ?? [];
      return await this.options.runner.runPlanned({
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
        work,
      });
    } catch (error) {
      if (error instanceof DryRunRollback) return error.result as HandleResult<Eo, S>[];
      throw translated(error);
    }
  }

  private stored(streamId: string, streamVersion: number, last: number, events: readonly LedgerEvent[], metadata: HandleOptions['metadata']): StoredLedgerEvent[] {
    return storedEvents(streamId, streamVersion, last, events, metadata, this.options.clock().toISOString(), this.options.newId);
  }

  private async decideAndAppend<C, Ei extends LedgerEvent, Eo extends Ei, S>(
    tx: PgWriteTransaction,
    streamId: string,
    history: readonly StoredLedgerEvent[],
    decider: Decider<C, Ei, Eo, S>,
    command: C,
    options: HandleOptions,
  ): Promise<HandleResult<Eo, S>> {
    const decision = decideOnStream(decider, history, command);
    // The stream was read under the writers' lock just now: its version is known, no need to ask again.
    return decision.result(await this.append(tx, streamId, decision.expectedVersion, decision.events, options.metadata, decision.expectedVersion));
  }

  /** Inside a unit of work: checks the version, inserts with positions after `tx.last`, projects. */
  private async append(
    tx: PgWriteTransaction,
    streamId: string,
    expectedVersion: number,
    events: readonly LedgerEvent[],
    metadata: HandleOptions['metadata'],
    knownVersion?: number,
  ): Promise<StoredLedgerEvent[]> {
    const actual = knownVersion ?? (await version(tx.client, streamId));
    if (actual !== expectedVersion) throw new ConcurrencyError(streamId, expectedVersion, actual);
    if (events.length === 0) return [];
    const stored = this.stored(streamId, expectedVersion, tx.last, events, metadata);
    // The insert goes out with the projection rows' loads (their keys do not depend on it); its error, if
    // any, is the one to report (a unique violation), the projections' then only say the unit is aborted.
    const inserted = insertEvents(tx.client, stored);
    const projected = projectBatch(tx.client, (type) => this.projectionsByType.get(type) ?? [], [stored]).then((writes) => writes.forEach(tx.defer));
    projected.catch(() => undefined);
    await inserted;
    await projected;
    tx.last += events.length;
    return stored;
  }
}

async function readStream(client: pg.Pool | pg.ClientBase, streamId: string): Promise<StoredLedgerEvent[]> {
  if (holdsNul([streamId])) return [];
  const { rows } = await client.query<EventRow>({ name: 'ledger_read_stream', text: READ_STREAM, values: [streamId] });
  return rows.map(toStoredEvent);
}

async function version(client: pg.Pool | pg.ClientBase, streamId: string): Promise<number> {
  if (holdsNul([streamId])) return 0;
  const { rows } = await client.query<{ v: number }>(VERSION, [streamId]);
  return rows[0]?.v ?? 0;
}

async function checkGuards(client: pg.ClientBase, guards: readonly StreamGuard[]): Promise<void> {
  const versions = await Promise.all(guards.map((guard) => version(client, guard.streamId)));
  guards.forEach((guard, i) => {
    if (versions[i] !== guard.expectedVersion) throw new ConcurrencyError(guard.streamId, guard.expectedVersion, versions[i]!);
  });
}

async function runHook(hook: BeforeCommit | undefined, appended: readonly StoredLedgerEvent[], tx: PgWriteTransaction): Promise<void> {
  if (hook) await hook(appended, tx);
}
