import type { Logger } from 'pino';
import { inlineProjections } from '../../../projections/index.js';
import { deciderName } from '../../domain/deciders.js';
import type { AnswerRebuilder } from '../idempotency.js';
import type { LedgerStorage } from '../ledger.js';
import { InProcessLimits } from '../shared-limits.js';
import { openDatabase, type OpenDatabase } from './database.js';
import { GroupCommitRunner } from './group-commit.js';
import { SqliteIdempotencyRecords } from './idempotency-records.js';
import { SqliteEventLog } from './log-reader.js';
import { SqliteProjectionMaintenance } from './projection-rebuild.js';
import { SqliteReadGeneration } from './read-generation.js';
import { SqliteQueryRunner } from './query-runner.js';
import { SqliteRelayStore } from './relay-store.js';
import { SqliteEventStore } from './sqlite-event-store.js';
import { startWalCheckpointer } from './wal-checkpointer.js';
import { sqliteWebhookStorage } from './webhook-storage.js';
import { ThreadedEventStore, ThreadedIdempotencyRecords, WriterThread } from './writer-thread.js';

export interface SqliteLedgerOptions {
  readonly clock: () => Date;
  /** The id of each appended event. */
  readonly newId: () => string;
  /** Most commands committed in one group-commit transaction. */
  readonly maxBatch?: number;
  /** From this many events on, whole-log reads run in a worker thread (see log-reader.ts). */
  readonly workerFromEvents?: number;
  /** Events a projection rebuild replays per write transaction (10,000). */
  readonly rebuildBatchSize?: number;
  /** Told of every durable group-commit batch (its units, BEGIN to on disk in ms). */
  readonly onBatch?: (units: number, commitMs: number) => void;
  /** The answers keyed writes record with their events (src/answers/recoveries.ts). */
  readonly rebuildAnswer: AnswerRebuilder;
  /** The writer thread's module (src/sqlite-writer.ts): when given, the service's writes run in that thread (a file database only). */
  readonly writerThread?: URL;
  /** `clock` is the real one: the writer thread reads its own rather than the time told at each call. */
  readonly realClock?: boolean;
}

/** The embedded adapter: one SQLite file, one connection for the service, group commit, a synchronous unit of work. */
export async function openSqliteLedger(file: string, options: SqliteLedgerOptions): Promise<LedgerStorage> {
  const database = openDatabase(file);
  if (!options.writerThread) return sqliteLedger(database, options);
  if (database.file === ':memory:') throw new Error('an in-memory SQLite database has no writer thread: nothing else can open it');
  try {
    const writer = await WriterThread.start(options.writerThread, database.file, {
      ...(options.maxBatch ? { maxBatch: options.maxBatch } : {}),
      ...(options.onBatch ? { onBatch: options.onBatch } : {}),
      ...(options.realClock ? {} : { clock: options.clock }),
    });
    return sqliteLedger(database, options, writer);
  } catch (error) {
    database.close();
    throw error;
  }
}

/** The storage over an open database (tests of the adapter itself keep `database` to look inside). */
export function sqliteLedger(database: OpenDatabase, options: SqliteLedgerOptions, writer?: WriterThread): LedgerStorage {
  const { sqlite } = database;
  const { clock, newId } = options;
  const walFile = database.file === ':memory:' ? undefined : `${database.file}-wal`;
  const runner = new GroupCommitRunner(sqlite, { maxBatch: options.maxBatch, walFile, onBatch: options.onBatch });
  const generation = new SqliteReadGeneration(sqlite);
  const changed = () => generation.changed();
  const storeOptions = { sqlite, projections: inlineProjections, clock, newId, runner, onReadGenerationChange: changed };
  // With a writer thread, this connection only reads and runs the operator's rare writes (rebuilds, the token secret, the service's identity).
  const committer = writer ?? runner;
  const log = new SqliteEventLog(sqlite, { workerFromEvents: options.workerFromEvents }, (wake) => committer.onCommitted(wake));
  const kept = {
    insert: sqlite.prepare<[string, string, string]>('INSERT INTO service_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
    read: sqlite.prepare<[string], { value: string }>('SELECT value FROM service_secrets WHERE name = ?'),
  };
  const ping = sqlite.prepare('SELECT 1');
  return {
    store: writer ? new ThreadedEventStore(writer, deciderName, storeOptions) : new SqliteEventStore(storeOptions),
    queries: new SqliteQueryRunner(sqlite),
    idempotency: writer ? new ThreadedIdempotencyRecords(writer) : new SqliteIdempotencyRecords(sqlite, runner, clock, options.rebuildAnswer),
    log,
    projections: new SqliteProjectionMaintenance(sqlite, log, clock, options.rebuildBatchSize, changed),
    // One server process per SQLite file: its limits are the process's.
    limits: new InProcessLimits(clock),
    relays: new SqliteRelayStore(sqlite, (work) => runner.run(work)),
    ...sqliteWebhookStorage(sqlite, (work) => runner.run(work)),
    location: database.file,
    readGeneration: { read: () => generation.current(), ownChanges: () => generation.own, roundTrip: false },
    async healthCheck() {
      try {
        ping.get();
        return writer?.running ?? true;
      } catch {
        return false;
      }
    },
    async keepServiceValue(name, candidate) {
      kept.insert.run(name, candidate, clock().toISOString());
      const row = kept.read.get(name);
      if (!row) throw new Error(`${name} could not be stored`);
      return row.value;
    },
    durable: () => committer.durable(),
    startUpkeep: (logger: Logger) => startWalCheckpointer(sqlite, logger, writer ? { autoCheckpoint: (pages) => writer.autoCheckpoint(pages) } : {}),
    async close() {
      await writer?.close();
      await runner.close();
      database.close();
    },
  };
}
