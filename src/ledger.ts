import { randomIds, type Clock, type IdGenerator } from './application/context.js';
import type { LedgerConfig } from './config.js';
import type { Ledger } from './store/ledger.js';
import { observedEventStore, type StoreObserver } from './store/store-observer.js';
import type { BatchReport } from './store/write-batches.js';

export type { Ledger } from './store/ledger.js';

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
}

/**
 * The composition root of the storage: the one place that knows which
 * adapter runs. The server, the CLI and the tests open the ledger here and
 * see only the ports. Asynchronous: a store may have to connect and migrate.
 */
export async function openLedger(location: LedgerLocation, options: OpenLedgerOptions = {}): Promise<Ledger> {
  const ledger = await openAdapter(location, options);
  const { observer } = options;
  return observer ? { ...ledger, store: observedEventStore(ledger.store, observer) } : ledger;
}

async function openAdapter(location: LedgerLocation, options: OpenLedgerOptions): Promise<Ledger> {
  const common = { clock: options.clock ?? (() => new Date()), ids: options.ids ?? randomIds };
  const { observer } = options;
  // Each adapter is imported only when it is the one opened: the CLI on SQLite never loads pg, and the
  // other way round (a quicker start for every command).
  if ('postgresUrl' in location) {
    const { openPostgresLedger } = await import('./store/postgres/open-postgres-ledger.js');
    const onBatch = pgBatchListener(options.onBatch, observer);
    return openPostgresLedger(location.postgresUrl, { ...common, ...(onBatch ? { onBatch } : {}) });
  }
  const { openSqliteLedger } = await import('./store/sqlite/open-sqlite-ledger.js');
  return openSqliteLedger(location.sqliteFile, { ...common, ...(observer ? { onBatch: (units: number, ms: number) => observer.onBatchCommitted(units, ms) } : {}) });
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
