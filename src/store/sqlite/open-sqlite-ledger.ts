import type { Logger } from 'pino';
import { inlineProjections } from '../../../projections/index.js';
import type { AnswerRebuilder } from '../idempotency.js';
import type { LedgerStorage } from '../ledger.js';
import { InProcessLimits } from '../shared-limits.js';
import { openDatabase, type OpenDatabase } from './database.js';
import { GroupCommitRunner } from './group-commit.js';
import { SqliteIdempotencyRecords } from './idempotency-records.js';
import { SqliteEventLog } from './log-reader.js';
import { SqliteProjectionMaintenance } from './projection-rebuild.js';
import { SqliteQueryRunner } from './query-runner.js';
import { SqliteEventStore } from './sqlite-event-store.js';
import { startWalCheckpointer } from './wal-checkpointer.js';

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
}

/**
 * The embedded adapter: one SQLite file (created and migrated if needed),
 * one connection for the service, group commit, a synchronous unit of work.
 */
export function openSqliteLedger(file: string, options: SqliteLedgerOptions): LedgerStorage {
  return sqliteLedger(openDatabase(file), options);
}

/** The storage over an open database (tests of the adapter itself keep `database` to look inside). */
export function sqliteLedger(database: OpenDatabase, options: SqliteLedgerOptions): LedgerStorage {
  const { sqlite } = database;
  const { clock, newId } = options;
  // A file database syncs its WAL off the event loop (group-commit.ts); ':memory:' has nothing to sync.
  const walFile = database.file === ':memory:' ? undefined : `${database.file}-wal`;
  const runner = new GroupCommitRunner(sqlite, { maxBatch: options.maxBatch, walFile, onBatch: options.onBatch });
  const store = new SqliteEventStore({ sqlite, projections: inlineProjections, clock, newId, runner });
  const log = new SqliteEventLog(sqlite, { workerFromEvents: options.workerFromEvents }, (wake) => runner.onCommitted(wake));
  const secret = {
    insert: sqlite.prepare<[string, string]>("INSERT INTO service_secrets (name, value, created_at) VALUES ('token_secret', ?, ?) ON CONFLICT DO NOTHING"),
    read: sqlite.prepare<[], { value: string }>("SELECT value FROM service_secrets WHERE name = 'token_secret'"),
  };
  const ping = sqlite.prepare('SELECT 1');
  return {
    store,
    queries: new SqliteQueryRunner(sqlite),
    idempotency: new SqliteIdempotencyRecords(sqlite, runner, clock, options.rebuildAnswer),
    log,
    projections: new SqliteProjectionMaintenance(sqlite, log, clock, options.rebuildBatchSize),
    // One server process per SQLite file: its limits are the process's.
    limits: new InProcessLimits(clock),
    location: database.file,
    async healthCheck() {
      try {
        ping.get();
        return true;
      } catch {
        return false;
      }
    },
    async keepTokenSecret(candidate) {
      secret.insert.run(candidate, clock().toISOString());
      const row = secret.read.get();
      if (!row) throw new Error('token secret could not be stored');
      return row.value;
    },
    durable: () => runner.durable(),
    startUpkeep: (logger: Logger) => startWalCheckpointer(sqlite, logger),
    async close() {
      await runner.close();
      database.close();
    },
  };
}
