import type { Logger } from 'pino';
import type { LedgerContext } from '../application/context.js';
import type { EventLog } from './event-log.js';
import type { IdempotencyRecords } from './idempotency.js';
import type { ProjectionMaintenance } from './projection-maintenance.js';
import type { SharedLimits } from './shared-limits.js';

/** Work a store does in the background while the service runs (SQLite: WAL checkpoints in a worker thread). */
export interface StoreUpkeep {
  stop(): Promise<void>;
}

/**
 * The ledger as the service, the CLI and the tests see it, whatever the
 * store behind it: the event store and read models the application uses, the
 * Idempotency-Key records, the log reader, projection maintenance, and the
 * service's own bits. No database handle leaves the store; only the one
 * composition root (src/ledger.ts) knows which adapter runs.
 */
export interface Ledger extends LedgerContext {
  readonly idempotency: IdempotencyRecords;
  readonly log: EventLog;
  readonly projections: ProjectionMaintenance;
  /** Limits that hold for every process serving the database (the process concurrency limit, request rates). */
  readonly limits: SharedLimits;
  /** Where the ledger lives, for logs and messages: the SQLite file, or the database URL without its password. */
  readonly location: string;
  /**
   * Resolves once every write committed so far is on disk. SQLite syncs its
   * WAL off the event loop after a batch's COMMIT (issue 20), so a reader could
   * otherwise answer with a write a power cut may still take back; the HTTP
   * app waits for this before it answers. PostgreSQL's commits are durable
   * before they are visible: it resolves at once.
   */
  durable(): Promise<void>;
  /** True when the database answers a trivial query. */
  healthCheck(): Promise<boolean>;
  /**
   * The token signing secret: `fromEnv` when set, else one generated on first
   * use and kept in the database (never in the event log), so tokens survive
   * restarts and are shared by every process on the same database.
   */
  tokenSecret(fromEnv: string | undefined): Promise<string>;
  /** Starts the store's background upkeep for a long-running server; stop it before `close`. */
  startUpkeep(logger: Logger): StoreUpkeep;
  close(): Promise<void>;
}
