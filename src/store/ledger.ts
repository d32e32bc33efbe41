import type { Logger } from 'pino';
import type { EventLog } from './event-log.js';
import type { EventStore } from './event-store.js';
import type { IdempotencyRecords } from './idempotency.js';
import type { ProjectionMaintenance } from './projection-maintenance.js';
import type { ProjectionQueries } from './projection-queries.js';
import type { SharedLimits } from './shared-limits.js';
import type { WebhookAttempts, WebhookSecrets } from './webhook-storage.js';

/** Work a store does in the background while the service runs (SQLite: WAL checkpoints in a worker thread). */
export interface StoreUpkeep {
  stop(): Promise<void>;
}

/** What a store adapter opens on one database: the ports the composition root (src/ledger.ts) builds the ledger from. */
/** What a ledger keeps once for every process on it: the token signing secret and the service's identity. */
export type ServiceValueName = 'token_secret' | 'service_id';

import type { RelayStore } from './relay-store.js';

export interface LedgerStorage {
  readonly store: EventStore;
  /** The projection tables, read by the read models (src/queries). */
  readonly queries: ProjectionQueries;
  readonly log: EventLog;
  readonly idempotency: IdempotencyRecords;
  readonly projections: ProjectionMaintenance;
  /** Limits that hold for every process serving the database (the process concurrency limit, request rates). */
  readonly limits: SharedLimits;
  /** The relays' positions, leases and parked webhook messages (events out: src/relay). */
  readonly relays: RelayStore;
  /** Webhook endpoints' signing secrets: outside the log, shown once to the caller. */
  readonly webhookSecrets: WebhookSecrets;
  /** The webhook delivery log (attempts): operational, kept for a retention. */
  readonly webhookAttempts: WebhookAttempts;
  /** Where the ledger lives, for logs and messages: the SQLite file, or the database URL without its password. */
  readonly location: string;
  /**
   * A number every change to the API keys, suppliers, teams or settings moves on, on any instance or
   * connection, read now: the rows every request reads are cached behind it (src/queries/generation-cached-reads.ts).
   * `roundTrip`: a read costs a round trip (PostgreSQL), so the checks of a request, and of the requests of an
   * event-loop turn, share one; otherwise it is a statement on the process's own connection (SQLite) and one
   * serves until the next request begins or `ownChanges` (the connection's own changes, which the statement
   * cannot see) moves.
   */
  readonly readGeneration?:
    | { readonly read: () => Promise<number>; readonly roundTrip: true }
    | { readonly read: () => number; readonly ownChanges: () => number; readonly roundTrip: false };
  /**
   * Resolves once every write committed so far is on disk: SQLite syncs its WAL after COMMIT, so a reader
   * waits for it before it answers what a power cut could take back. PostgreSQL resolves at once.
   */
  durable(): Promise<void>;
  /** True when the database answers a trivial query. */
  healthCheck(): Promise<boolean>;
  /**
   * Keeps `candidate` as the service's value `name` unless one is kept already, and resolves to the one kept:
   * every process on the database signs with the same secret and answers with the same identity. Neither goes
   * into the event log.
   */
  keepServiceValue(name: ServiceValueName, candidate: string): Promise<string>;
  /** Starts the store's background upkeep for a long-running server; stop it before `close`. */
  startUpkeep(logger: Logger): StoreUpkeep;
  close(): Promise<void>;
}
