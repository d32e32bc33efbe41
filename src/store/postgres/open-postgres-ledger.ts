import { inlineProjections } from '../../../projections/index.js';
import type { AnswerRebuilder } from '../idempotency.js';
import type { LedgerStorage } from '../ledger.js';
import { migrateLedger, newPool, redactedUrl, type PgOptions } from './pg-database.js';
import { PgEventStore } from './pg-event-store.js';
import { PgGroupCommitRunner, type PgGroupCommitOptions } from './pg-group-commit.js';
import { PgIdempotencyRecords } from './pg-idempotency-records.js';
import { PgListener } from './pg-listen.js';
import { PgEventLog } from './pg-log-reader.js';
import { PgProjectionMaintenance } from './pg-projection-rebuild.js';
import { PgQueryRunner } from './pg-query-runner.js';
import { readGeneration } from './pg-read-generation.js';
import { PgSharedLimits } from './pg-shared-limits.js';
import { PgRelayStore } from './pg-relay-store.js';
import { pgWebhookStorage } from './pg-webhook-storage.js';

export interface PostgresLedgerOptions extends PgOptions {
  readonly clock: () => Date;
  /** The id of each appended event. */
  readonly newId: () => string;
  /** Most commands committed in one group-commit transaction. */
  readonly maxBatch?: number;
  /** Events a projection rebuild replays per write of its scratch tables (10,000). */
  readonly rebuildBatchSize?: number;
  /** Told of every group-commit batch (its size, pipelined or unit by unit). */
  readonly onBatch?: PgGroupCommitOptions['onBatch'];
  /** The answers keyed writes record with their events (src/answers/recoveries.ts). */
  readonly rebuildAnswer: AnswerRebuilder;
}

/**
 * The N-instance adapter: every instance of the service on one PostgreSQL database. Per instance: a writer
 * connection, a read pool, connections holding session locks, and short-lived ones for whole-log reads and rebuilds.
 */
export async function openPostgresLedger(url: string, options: PostgresLedgerOptions): Promise<LedgerStorage> {
  await migrateLedger(url);
  const { clock, newId } = options;
  const pool = newPool(url, options);
  const runner = new PgGroupCommitRunner(url, { ...options, inline: inlineProjections });
  const listener = new PgListener(url, options);
  const log = new PgEventLog(pool, url, options, (wake) => listener.subscribe(wake));
  const idempotency = new PgIdempotencyRecords(pool, url, clock, options.rebuildAnswer, options);
  const limits = new PgSharedLimits(pool, url, clock, options);
  return {
    store: new PgEventStore({ pool, runner, clock, newId }),
    queries: new PgQueryRunner(pool),
    readGeneration: { read: () => readGeneration(pool), roundTrip: true },
    idempotency,
    log,
    projections: new PgProjectionMaintenance(pool, url, log, clock, { ...options, replayBatch: options.rebuildBatchSize }),
    limits,
    relays: new PgRelayStore(pool),
    ...pgWebhookStorage(pool),
    location: redactedUrl(url),
    async healthCheck() {
      try {
        await pool.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    async keepServiceValue(name, candidate) {
      await pool.query('INSERT INTO service_secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [name, candidate, clock().toISOString()]);
      const { rows } = await pool.query<{ value: string }>('SELECT value FROM service_secrets WHERE name = $1', [name]);
      if (!rows[0]) throw new Error(`${name} could not be stored`);
      return rows[0].value;
    },
    // synchronous_commit is on: a commit is on disk before another session can see it.
    durable: async () => undefined,
    // PostgreSQL checkpoints by itself: nothing to run beside the service.
    startUpkeep: () => ({ stop: async () => undefined }),
    async close() {
      await runner.close();
      await listener.close();
      await idempotency.close();
      await limits.close();
      await pool.end();
    },
  };
}
