import type pg from 'pg';
import { StoreUnavailableError, type WriteTransaction } from '../event-store.js';
import { refuseVersionsAhead } from '../projection-maintenance.js';
import { LOCK_CLASS, newClient, sqlState, WRITE_LOCK, type PgOptions } from './pg-database.js';

/**
 * The transaction a unit of work runs in: the writer connection inside the
 * unit's savepoint, under the writers' lock. `last` is the global position of
 * the last event of the log as this transaction sees it: the event store
 * assigns positions `last + 1, ...` (gapless, in commit order) and moves it on.
 */
export interface PgWriteTransaction extends WriteTransaction {
  readonly store: 'postgres';
  readonly client: pg.ClientBase;
  last: number;
  /**
   * Statements of the unit sent and not awaited (its projection rows' writes): the runner awaits them
   * together with the unit's RELEASE, in one flight, and rolls the unit back if one failed.
   */
  defer(statement: Promise<unknown>): void;
}

/** A unit's deferred statements: their first failure in the order they were sent (later ones only say the unit was aborted). */
class Deferred {
  private readonly statements: Promise<{ ok: true } | { ok: false; error: unknown }>[] = [];

  add(statement: Promise<unknown>): void {
    this.statements.push(statement.then(() => ({ ok: true }) as const, (error: unknown) => ({ ok: false, error }) as const));
  }

  /** Resolves when every one settled; throws the first failure. */
  async settle(): Promise<void> {
    const outcomes = await Promise.all(this.statements.splice(0));
    const failed = outcomes.find((outcome) => !outcome.ok);
    if (failed && !failed.ok) throw failed.error;
  }
}

/** The SQLite counterpart is the connection; here the writer client of the batch. */
export function postgresTransaction(tx: WriteTransaction): PgWriteTransaction {
  if (tx.store !== 'postgres') throw new Error(`a PostgreSQL hook was given a ${tx.store} transaction`);
  return tx as PgWriteTransaction;
}

/** The COMMIT's outcome could not be learnt (the connection died and the transaction's status is unknown): nothing is acknowledged. */
export class CommitOutcomeUnknownError extends StoreUnavailableError {
  constructor(cause: unknown) {
    super('the connection to PostgreSQL was lost during COMMIT and the outcome could not be established', { cause });
    this.name = 'CommitOutcomeUnknownError';
  }
}

interface Pending {
  readonly work: (tx: PgWriteTransaction) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export interface PgGroupCommitOptions extends PgOptions {
  readonly maxBatch?: number;
  /** Called after each commit that appended events, with the last position (the NOTIFY is sent in the transaction). */
  readonly notifyChannel?: string;
  /**
   * The projections this build writes inline, with their versions: a batch is refused when the database
   * holds one at a higher version (a newer instance rebuilt it; research pitfall 8, rolling deploys).
   */
  readonly projections?: readonly { readonly name: string; readonly version: number }[];
}

/**
 * Group commit for PostgreSQL, with SQLite's semantics: units of work that
 * arrive together run one after another in ONE transaction on the writer
 * connection, each in its own savepoint, under a transaction-scoped advisory
 * lock that every instance takes before writing (one writer at a time across
 * instances, as `BEGIN IMMEDIATE` on SQLite):
 *
 * - the lock is taken in its own statement of a READ COMMITTED transaction,
 *   so the statements after it see everything the previous holder committed
 *   (a REPEATABLE READ snapshot, or a read in the lock's statement, would
 *   predate it); positions are assigned under it as max + 1, so they are
 *   gapless and rise in commit order and no reader ever skips an event;
 * - each unit sees what the units before it in the batch wrote; a unit that
 *   throws is rolled back to its savepoint alone;
 * - no caller's promise settles before COMMIT returned. If the connection is
 *   lost during COMMIT, the transaction's status is asked on a new connection
 *   (`pg_xact_status`): committed, the units succeed; anything else, they fail.
 */
export class PgGroupCommitRunner {
  private queue: Pending[] = [];
  private flushing = false;
  private scheduled = false;
  private writer: pg.Client | null = null;
  private closed = false;
  private readonly maxBatch: number;
  private readonly projections: readonly { readonly name: string; readonly version: number }[];

  constructor(
    private readonly url: string,
    private readonly options: PgGroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 256;
    this.projections = options.projections ?? [];
  }

  run<T>(work: (tx: PgWriteTransaction) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the ledger is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.flushing || this.queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.writer?.end().catch(() => undefined);
    this.writer = null;
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async connection(): Promise<pg.Client> {
    if (!this.writer) {
      // Pipelined: statements that do not wait for each other's answers go out in one flight.
      const client = await newClient(this.url, this.options, true);
      client.on('error', () => {
        if (this.writer === client) this.writer = null;
      });
      this.writer = client;
    }
    return this.writer;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    const batch = this.queue.splice(0, this.maxBatch);
    try {
      if (batch.length > 0) await this.commitBatch(batch);
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async commitBatch(batch: Pending[]): Promise<void> {
    let client: pg.Client;
    try {
      client = await this.connection();
    } catch (error) {
      for (const unit of batch) unit.reject(error);
      return;
    }
    const outcomes: { ok: boolean; value: unknown }[] = [];
    let xid: string;
    let appended = false;
    let last = 0;
    try {
      // One flight (the writer connection pipelines): the lock is its own statement, and the read after it
      // runs once the lock is granted, with a snapshot taken then (READ COMMITTED), so it sees the previous
      // holder's commit.
      const [, , head] = await Promise.all([
        client.query('BEGIN'),
        client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, WRITE_LOCK]),
        client.query<{ last: number; xid: string; ahead: string | null }>(
          `SELECT (SELECT coalesce(max(global_position), 0) FROM events) AS last, pg_current_xact_id()::text AS xid,
                  (SELECT json_object_agg(v.name, v.version)::text FROM projection_versions v
                     JOIN unnest($1::text[], $2::int[]) AS d(name, version) ON d.name = v.name WHERE v.version > d.version) AS ahead`,
          [this.projections.map((p) => p.name), this.projections.map((p) => p.version)],
        ),
      ]);
      xid = head.rows[0]!.xid;
      // Under the lock, so no newer instance's rebuild can land between this check and the batch's COMMIT.
      const ahead = head.rows[0]!.ahead;
      if (ahead !== null) refuseVersionsAhead(new Map(Object.entries(JSON.parse(ahead) as Record<string, number>)), this.projections);
      const deferred = new Deferred();
      const tx: PgWriteTransaction = { store: 'postgres', client, last: head.rows[0]!.last, defer: (statement) => deferred.add(statement) };
      const start = tx.last;
      for (const unit of batch) {
        const saved = tx.last;
        // The savepoint goes out with the unit's first statements, the RELEASE with its last ones.
        const savepoint = client.query('SAVEPOINT unit');
        try {
          const [, value] = await Promise.all([savepoint, unit.work(tx)]);
          const release = client.query('RELEASE SAVEPOINT unit');
          release.catch(() => undefined); // a failed deferred statement is the error to report
          await deferred.settle();
          await release;
          outcomes.push({ ok: true, value });
        } catch (error) {
          // A deferred statement that failed is the cause: the unit's statements after it were refused.
          const cause = await deferred.settle().then(
            () => error,
            (failed: unknown) => failed,
          );
          // Still inside the unit's savepoint: a RELEASE refused in the aborted transaction leaves it in place.
          await client.query('ROLLBACK TO SAVEPOINT unit');
          await client.query('RELEASE SAVEPOINT unit');
          tx.last = saved;
          outcomes.push({ ok: false, value: cause });
        }
      }
      appended = tx.last > start;
      last = tx.last;
    } catch (error) {
      // Before COMMIT: nothing was committed; a broken connection is replaced on the next batch.
      await client.query('ROLLBACK').catch(() => this.drop(client));
      for (const unit of batch) unit.reject(translateLockTimeout(error));
      return;
    }
    try {
      // The NOTIFY goes out with the COMMIT (it is sent to listeners at commit, or not at all).
      const notified = appended && this.options.notifyChannel ? client.query('SELECT pg_notify($1, $2)', [this.options.notifyChannel, String(last)]) : null;
      notified?.catch(() => undefined); // a failed NOTIFY aborts the transaction: the COMMIT answers ROLLBACK
      // On a transaction PostgreSQL had already aborted, COMMIT answers ROLLBACK without an error: never take it for a commit.
      const committed = await client.query('COMMIT');
      if (committed.command !== 'COMMIT') {
        const failure = new Error(`PostgreSQL rolled the batch back at COMMIT (${committed.command})`);
        for (const unit of batch) unit.reject(failure);
        return;
      }
    } catch (error) {
      this.drop(client);
      const committed = await this.committed(xid).catch(() => null);
      if (committed !== true) {
        const failure = committed === false ? error : new CommitOutcomeUnknownError(error);
        for (const unit of batch) unit.reject(failure);
        return;
      }
    }
    batch.forEach((unit, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.value);
    });
  }

  /** Whether the transaction committed (asked on a new connection after its own was lost); null when PostgreSQL cannot tell. */
  private async committed(xid: string): Promise<boolean | null> {
    const client = await newClient(this.url, this.options);
    try {
      const { rows } = await client.query<{ status: string | null }>('SELECT pg_xact_status($1::xid8) AS status', [xid]);
      const status = rows[0]?.status ?? null;
      return status === 'committed' ? true : status === 'aborted' ? false : null;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private drop(client: pg.Client): void {
    if (this.writer === client) this.writer = null;
    void client.end().catch(() => undefined);
  }
}

/** The writers' lock could not be had in time (another instance holds it too long): a retryable failure. */
export class WriteLockTimeoutError extends StoreUnavailableError {
  constructor(cause: unknown) {
    super('the ledger is busy: the write lock could not be taken in time; retry', { cause });
    this.name = 'WriteLockTimeoutError';
  }
}

function translateLockTimeout(error: unknown): unknown {
  return sqlState(error) === '55P03' ? new WriteLockTimeoutError(error) : error;
}
