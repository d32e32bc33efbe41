import { randomUUID } from 'node:crypto';
import { rebuildAnswer } from './answers/recoveries.js';
import { randomIds, type Clock, type IdGenerator } from './application/clock-and-ids.js';
import type { LedgerContext } from './application/context.js';
import { generateTokenSecret } from './application/tokens.js';
import { ConfigError, type LedgerConfig } from './config.js';
import { createFeedReadModels } from './feed/event-feed.js';
import { threadEntry } from './thread-module.js';
import { generationCachedReads, requestSharedGeneration, untilNextRequest } from './queries/generation-cached-reads.js';
import { createReadModels } from './queries/read-models.js';
import type { AnswerRebuilder } from './store/idempotency.js';
import type { LedgerStorage } from './store/ledger.js';
import { observedEventStore, type StoreObserver } from './store/store-observer.js';
import type { BatchReport } from './store/write-batches.js';
import { DEFAULT_WEBHOOK_ATTEMPT_RETENTION_DAYS, withAttemptRetention } from './store/webhook-storage.js';

/** The ledger as the service, the CLI and the tests see it, whatever the store behind it. */
export interface Ledger extends LedgerContext, Omit<LedgerStorage, 'queries' | 'readGeneration' | 'keepServiceValue'> {
  /** The token signing secret: `fromEnv`, else one generated once and kept in the database, shared by every process on it. */
  tokenSecret(fromEnv: string | undefined): Promise<string>;
  /**
   * The service's identity: a UUID drawn once with the ledger and kept in it, the same for every instance on
   * it; a new database (a reset) is a new service. A migration's journal records it (docs/migrate.md).
   */
  serviceId(): Promise<string>;
}

/** Where the ledger lives: what the configuration says (LEDGER_DATABASE_URL, else LEDGER_DATABASE). */
export type LedgerLocation =
  /** The SQLite file (created and migrated if needed): the embedded default. */
  | { readonly sqliteFile: string }
  /** A PostgreSQL database several instances share (migrated at start-up by one of them). */
  | { readonly postgresUrl: string };

/** The location the configuration names. */
export function ledgerLocation(config: Pick<LedgerConfig, 'LEDGER_DATABASE' | 'LEDGER_DATABASE_URL'>): LedgerLocation {
  return config.LEDGER_DATABASE_URL ? { postgresUrl: config.LEDGER_DATABASE_URL } : { sqliteFile: config.LEDGER_DATABASE };
}

export interface OpenLedgerOptions {
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  /** PostgreSQL: told of every group-commit batch (its size, how it ran, the writers' lock's wait and hold). */
  readonly onBatch?: (batch: BatchReport) => void;
  /** Told of appended events, refusals, conflicts and group-commit batches (the service's metrics). */
  readonly observer?: StoreObserver;
  /** SQLite: the service's writes run in a thread of their own (LEDGER_SQLITE_WRITER=thread), which draws random event ids. */
  readonly writerThread?: boolean;
  /** How long webhook delivery attempts are kept (LEDGER_WEBHOOK_ATTEMPT_RETENTION_DAYS, 7 days by default). */
  readonly webhookAttemptRetentionDays?: number;
}

/** The writer thread's module: the bundle's when this runs from it, else the sources'. */
export const writerEntry = (): URL => threadEntry('sqlite-writer', import.meta.url);

/** The composition root: the one place that knows which adapter runs; the server, the CLI and the tests see only the ports. */
export async function openLedger(location: LedgerLocation, options: OpenLedgerOptions = {}): Promise<Ledger> {
  const sources = { clock: options.clock ?? (() => new Date()), ids: options.ids ?? randomIds };
  const opened = await openAdapter(location, { clock: sources.clock, newId: sources.ids.uuid, rebuildAnswer }, options).catch(async (error: unknown) => {
    throw (await unusableDatabase(location, error)) ?? error;
  });
  const retentionMs = (options.webhookAttemptRetentionDays ?? DEFAULT_WEBHOOK_ATTEMPT_RETENTION_DAYS) * 24 * 60 * 60 * 1000;
  const storage = { ...opened, webhookAttempts: withAttemptRetention(opened.webhookAttempts, sources.clock, retentionMs) };
  const { observer } = options;
  return assembleLedger(observer ? { ...storage, store: observedEventStore(storage.store, observer) } : storage, sources);
}

/**
 * The ledger over a store's storage: the same read models, feed and token secret for every store. The rows
 * every request reads are kept in memory behind the store's read generation, as fresh as reading them again.
 */
export function assembleLedger(storage: LedgerStorage, sources: Pick<LedgerContext, 'clock' | 'ids'>): Ledger {
  const { queries, readGeneration, keepServiceValue, ...ports } = storage;
  let serviceId: Promise<string> | null = null;
  const tables = createReadModels(queries, storage.log);
  const read = { ...tables, ...createFeedReadModels(storage.log, tables.findPopulateBatch) };
  return {
    ...ports,
    read: readGeneration
      ? generationCachedReads(read, readGeneration.roundTrip ? requestSharedGeneration(readGeneration.read) : untilNextRequest(readGeneration.read, readGeneration.ownChanges))
      : read,
    clock: sources.clock,
    ids: sources.ids,
    tokenSecret: async (fromEnv) => fromEnv || keepServiceValue('token_secret', generateTokenSecret()),
    serviceId: () =>
      (serviceId ??= keepServiceValue('service_id', randomUUID()).catch((error: unknown) => {
        serviceId = null; // the database did not answer: the next call asks again
        throw error;
      })),
  };
}

/**
 * What PostgreSQL, the network and SQLite answer when the database the configuration names cannot be used at
 * all: it does not exist, cannot be reached or opened, refuses the user, or is not a database. That is a
 * configuration error (exit 2, docs/operations.md), not a failure of the command.
 */
const UNUSABLE_DATABASE = new Set([
  '3D000', // invalid_catalog_name: no such database
  '28000', // invalid_authorization_specification: no such role, no user name, refused by pg_hba.conf
  '28P01', // invalid_password
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'SQLITE_CANTOPEN',
  'SQLITE_NOTADB',
  'SQLITE_READONLY',
  'SQLITE_PERM',
]);

async function unusableDatabase(location: LedgerLocation, error: unknown): Promise<ConfigError | null> {
  if (!(error instanceof Error)) return null;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  // A file system call failing while the SQLite file is opened: its folder cannot be made, or it cannot be read.
  const fileRefused = 'sqliteFile' in location && typeof syscall === 'string';
  if (!fileRefused && !UNUSABLE_DATABASE.has(String(code))) return null;
  if ('sqliteFile' in location) return new ConfigError(`LEDGER_DATABASE ${location.sqliteFile} cannot be used: ${error.message}`);
  const { redactedUrl } = await import('./store/postgres/pg-database.js');
  return new ConfigError(`LEDGER_DATABASE_URL ${redactedUrl(location.postgresUrl)} cannot be used: ${error.message}`);
}

async function openAdapter(location: LedgerLocation, common: { clock: Clock; newId: () => string; rebuildAnswer: AnswerRebuilder }, options: OpenLedgerOptions): Promise<LedgerStorage> {
  const { observer } = options;
  // Each adapter is imported only when opened, so a command loads one driver (a quicker start).
  if ('postgresUrl' in location) {
    const { openPostgresLedger } = await import('./store/postgres/open-postgres-ledger.js');
    const onBatch = pgBatchListener(options.onBatch, observer);
    return openPostgresLedger(location.postgresUrl, { ...common, ...(onBatch ? { onBatch } : {}) });
  }
  const { openSqliteLedger } = await import('./store/sqlite/open-sqlite-ledger.js');
  return openSqliteLedger(location.sqliteFile, {
    ...common,
    ...(observer ? { onBatch: (units: number, ms: number) => observer.onBatchCommitted(units, ms) } : {}),
    ...(options.writerThread ? { writerThread: writerEntry(), realClock: !options.clock } : {}),
  });
}

/** PostgreSQL's batch reports, to the debug summary and to the observer (a batch commits when the lock is let go). */
function pgBatchListener(onBatch: OpenLedgerOptions['onBatch'], observer: StoreObserver | undefined): ((batch: BatchReport) => void) | undefined {
  if (!observer) return onBatch;
  return (batch) => {
    onBatch?.(batch);
    observer.onBatchCommitted(batch.units, batch.lockWaitMs + batch.lockHeldMs);
    observer.onWriteLock(batch.lockWaitMs, batch.lockHeldMs);
  };
}
