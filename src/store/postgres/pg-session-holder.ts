import type pg from 'pg';
import { newClient, type PgOptions } from './pg-database.js';

/**
 * A connection kept open for session advisory locks (Idempotency-Key holds, limit slots), which an
 * instance that dies frees with its session. Opened on first use and after a loss (`onLost`: the locks are
 * gone); queries run one at a time.
 */
export class PgSessionHolder {
  private client: Promise<pg.Client> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly options: PgOptions,
    private readonly onLost: () => void,
  ) {}

  /** Runs one statement on the session; the client it ran on comes back too, to tell a later session apart. */
  query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<{ rows: R[]; session: pg.Client }> {
    return this.exclusive(async (session) => ({ rows: (await session.query<R>(text, values)).rows, session }));
  }

  /** Runs `work` on the session with nothing else of this instance on it meanwhile (check-then-act on its locks). */
  exclusive<T>(work: (session: pg.Client) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => work(await this.session()));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Whether `session` is still the live one (its locks still held). */
  async isCurrent(session: pg.Client): Promise<boolean> {
    return (await this.client?.catch(() => null)) === session;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await (await client.catch(() => null))?.end().catch(() => undefined);
  }

  private session(): Promise<pg.Client> {
    if (!this.client) {
      const connecting = newClient(this.url, this.options).then((client) => {
        client.on('end', () => {
          if (this.client === connecting) this.client = null;
          this.onLost();
        });
        return client;
      });
      connecting.catch(() => {
        if (this.client === connecting) this.client = null;
      });
      this.client = connecting;
    }
    return this.client;
  }
}
