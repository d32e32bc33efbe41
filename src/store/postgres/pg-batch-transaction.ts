import type pg from 'pg';
import { StoreUnavailableError } from '../event-store.js';
import { refuseVersionsAhead } from '../projection-maintenance.js';
import { EVENTS_CHANNEL, LOCK_CLASS, newClient, sqlState, WRITE_LOCK, type PgOptions } from './pg-database.js';

/** The COMMIT's outcome could not be learnt (the connection died, the transaction's status unknown): nothing is acknowledged. */
export class CommitOutcomeUnknownError extends StoreUnavailableError {
  constructor(cause: unknown) {
    super('the connection to PostgreSQL was lost during COMMIT and the outcome could not be established', { cause });
    this.name = 'CommitOutcomeUnknownError';
  }
}

/** The writers' lock could not be had in time (another instance holds it too long): a retryable failure. */
export class WriteLockTimeoutError extends StoreUnavailableError {
  constructor(cause: unknown) {
    super('the ledger is busy: the write lock could not be taken in time; retry', { cause });
    this.name = 'WriteLockTimeoutError';
  }
}

export function translateLockTimeout(error: unknown): unknown {
  return sqlState(error) === '55P03' ? new WriteLockTimeoutError(error) : error;
}

/** A statement without parameters in the extended protocol: a simple query escapes the cork that gathers a flight. */
export const extended = (text: string): pg.QueryConfig => ({ text, queryMode: 'extended' }) as pg.QueryConfig & { queryMode: 'extended' };

/** How long a lost COMMIT's outcome is waited for while its transaction is still in progress. */
const SETTLE_MS = 5_000;

export interface BatchTransactionOptions extends PgOptions {
  /** The inline projections this build writes: a batch is refused when the database holds a newer version of one. */
  readonly projections: readonly { readonly name: string; readonly version: number }[];
}

/** BEGIN under the writers' lock, and COMMIT with its outcome established even when the connection is lost. */
export class BatchTransaction {
  constructor(
    private readonly url: string,
    private readonly options: BatchTransactionOptions,
    /** Ends a connection that broke (the next batch opens a new one). */
    private readonly drop: (client: pg.Client) => void,
  ) {}

  /**
   * BEGIN, the writers' lock and the head of the log in one flight. The lock is its own statement of a READ
   * COMMITTED transaction, so what follows it sees the previous holder's commit; statements sent before its
   * answer also run under the lock.
   */
  async begin(client: pg.Client): Promise<{ last: number; xid: string }> {
    const projections = this.options.projections;
    const [, , head] = await Promise.all([
      client.query(extended('BEGIN')),
      client.query({ name: 'ledger_write_lock', text: 'SELECT pg_advisory_xact_lock($1, $2)', values: [LOCK_CLASS, WRITE_LOCK] }),
      client.query<{ last: number; xid: string; ahead: string | null }>({
        name: 'ledger_write_head',
        text: `SELECT (SELECT coalesce(max(global_position), 0) FROM events) AS last, pg_current_xact_id()::text AS xid,
                      (SELECT json_object_agg(v.name, v.version)::text FROM projection_versions v
                         JOIN unnest($1::text[], $2::int[]) AS d(name, version) ON d.name = v.name WHERE v.version > d.version) AS ahead`,
        values: [projections.map((p) => p.name), projections.map((p) => p.version)],
      }),
    ]);
    // Under the lock, so no newer instance's rebuild can land between this check and the batch's COMMIT.
    const ahead = head.rows[0]!.ahead;
    if (ahead !== null) refuseVersionsAhead(new Map(Object.entries(JSON.parse(ahead) as Record<string, number>)), projections);
    return { last: head.rows[0]!.last, xid: head.rows[0]!.xid };
  }

  /**
   * COMMIT, with the NOTIFY of the last position when the batch appended: true once committed; false when
   * PostgreSQL rolled it back (a statement had failed: COMMIT then answers ROLLBACK without an error); else
   * the error to fail the batch with (the connection lost and the outcome not committed, or unknown).
   */
  async commit(client: pg.Client, xid: string, notify: number | null): Promise<true | false | unknown> {
    try {
      const notified = notify !== null ? client.query({ name: 'ledger_notify', text: 'SELECT pg_notify($1, $2)', values: [EVENTS_CHANNEL, String(notify)] }) : null;
      notified?.catch(() => undefined); // a failed NOTIFY aborts the transaction: the COMMIT answers ROLLBACK
      const committed = await client.query(extended('COMMIT'));
      return committed.command === 'COMMIT';
    } catch (error) {
      this.drop(client);
      const committed = await this.committed(xid, (client as unknown as { processID: number | null }).processID).catch(() => null);
      if (committed === true) return true;
      return committed === false ? error : new CommitOutcomeUnknownError(error);
    }
  }

  /** ROLLBACK before COMMIT was sent (nothing was committed); a connection that cannot is dropped. */
  async rollback(client: pg.Client): Promise<void> {
    await client.query('ROLLBACK').catch(() => this.drop(client));
  }

  /**
   * Whether the transaction committed, asked on a new connection after its own was lost; null when
   * PostgreSQL cannot tell. A session still running it is ended, which lets a COMMIT under way finish and
   * aborts anything else, and the status is asked again until it is settled (at most `SETTLE_MS`).
   */
  private async committed(xid: string, pid: number | null): Promise<boolean | null> {
    const client = await newClient(this.url, this.options);
    try {
      const deadline = performance.now() + SETTLE_MS;
      let ended = false;
      for (;;) {
        const { rows } = await client.query<{ status: string | null }>('SELECT pg_xact_status($1::xid8) AS status', [xid]);
        const status = rows[0]?.status ?? null;
        if (status === 'committed') return true;
        if (status === 'aborted') return false;
        if (status !== 'in progress' || performance.now() > deadline) return null;
        if (!ended && pid !== null) {
          // Only the session still running this very transaction (its 32-bit id: the low half of the xid8).
          await client.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE pid = $1 AND backend_xid::text = (($2::text)::numeric % 4294967296)::text`,
            [pid, xid],
          );
          ended = true;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
