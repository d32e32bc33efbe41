import { createHash } from 'node:crypto';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { packageRoot } from '../../package-root.js';

/** Advisory lock keys of the ledger: (class, id) pairs, so they stay apart from anyone else's on the database. */
export const LOCK_CLASS = 0x1ed6e7;
export const WRITE_LOCK = 1;
export const MIGRATE_LOCK = 2;
/** Held for a whole projection rebuild or verify: their scratch tables have fixed names. */
export const REBUILD_LOCK = 3;
/** Held while an instance checks for stale projections at start-up and rebuilds them. */
export const STARTUP_REBUILD_LOCK = 4;
/** Idempotency-Key holds use their own class, keyed by a hash of the key. */
export const IDEMPOTENCY_LOCK_CLASS = 0x1ed6e8;

/** The channel every commit that appended events notifies: a wake-up only, readers read the log themselves. */
export const EVENTS_CHANNEL = 'ledger_events';

/** int8 (positions, counts) as a JS number, which holds every value the ledger stores exactly; the global pg.types stay as they are. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PgOptions {
  /** Connections of the read pool (reads outside the write lock: queries, the feed, streams read before a command). */
  readonly poolSize?: number;
  /** Most time a statement may run (ms). */
  readonly statementTimeoutMs?: number;
  /** Most time a statement waits for a lock, the writers' lock included (ms): a stuck writer cannot stall every instance. */
  readonly lockTimeoutMs?: number;
  /** A session left idle inside a transaction is ended after this long (ms). */
  readonly idleInTransactionTimeoutMs?: number;
  /** Most time a new connection may take (ms): a server that does not answer fails requests with 503 instead of holding them. */
  readonly connectTimeoutMs?: number;
  /** The connection's part in the instance, in its application_name (`import-ledger/<role>`; the read pool's is `import-ledger`). */
  readonly role?: ConnectionRole;
}

/** What a connection of an instance is for, as `pg_stat_activity.application_name` shows it to an operator. */
export type ConnectionRole = 'writer' | 'listen' | 'keys' | 'slots' | 'log-read' | 'rebuild';

/**
 * The session settings every connection of the ledger gets (`options` of the startup message). No parallel
 * plans and no JIT: the ledger's queries are lookups by key and pages read in index order, and on a table the
 * server has not analyzed yet (a new database filling up, autovacuum off or behind) the planner takes a lookup
 * of a few streams for thousands of rows (a million at a million accounts). It starts parallel workers for it
 * (95 ms for 40 rows at 100,000 accounts where the same lookup alone takes 1 ms), and past `jit_above_cost`
 * compiles it on every execution (a stream's 20 events read in 16-19 ms at a million accounts, 15 of them
 * compiling; 0.4 ms without). Under the writers' lock every instance waits for it.
 */
function sessionOptions(options: PgOptions, settings: readonly string[] = []): string {
  return [
    ...settings.map((setting) => `-c ${setting}`),
    '-c max_parallel_workers_per_gather=0',
    '-c jit=off',
    `-c statement_timeout=${options.statementTimeoutMs ?? 30_000}`,
    `-c lock_timeout=${options.lockTimeoutMs ?? 10_000}`,
    `-c idle_in_transaction_session_timeout=${options.idleInTransactionTimeoutMs ?? 15_000}`,
    '-c default_transaction_isolation=read\\ committed',
  ].join(' ');
}

/**
 * A socket that sends what is written to it in one tick in one system call: node-postgres uncorks after
 * each query, so a pipelined flight would be one write per query. (`connect` resets `write` on the instance.)
 */
class CorkingSocket extends Socket {
  private deferredUncorks = 0;

  override uncork(): void {
    if (this.writableEnded || this.destroyed) {
      super.uncork();
      return;
    }
    if (this.deferredUncorks++ === 0) {
      process.nextTick(() => {
        while (this.deferredUncorks > 0) {
          this.deferredUncorks--;
          super.uncork();
        }
      });
    }
  }
}

export function clientConfig(url: string, options: PgOptions = {}, settings: readonly string[] = []): pg.ClientConfig {
  return {
    connectionString: url,
    types,
    options: sessionOptions(options, settings),
    application_name: options.role ? `import-ledger/${options.role}` : 'import-ledger',
    stream: () => new CorkingSocket(),
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    // A server gone without a word (its host lost, the network cut) is noticed on an idle connection too.
    keepAlive: true,
  };
}

export function newPool(url: string, options: PgOptions = {}): pg.Pool {
  const pool = new pg.Pool({ ...clientConfig(url, options), max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  // An idle client that loses its connection (the server restarted) emits here; without a listener the process would crash.
  pool.on('error', () => undefined);
  // A client checked out has no pool listener while out: an 'error' nobody hears would end the process. Its
  // queries fail instead (the request answers 503), and the pool drops it when it comes back unqueryable.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** A new connection; `pipeline` sends statements without waiting for the answers before them; `settings` are `name=value`. */
export async function newClient(url: string, options: PgOptions = {}, pipeline = false, settings: readonly string[] = []): Promise<pg.Client> {
  const client = new pg.Client({ ...clientConfig(url, options, settings), pipeline });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * The writer's connection (pipelined): no sequential scans (its reads are lookups by key, and on a table not
 * yet analyzed the planner would scan it whole under the writers' lock); each statement run on the one plan
 * it made for it, where PostgreSQL would plan a read of a key array anew at every execution, under the lock
 * (the connection is replaced as the log grows, so the plans follow the tables: pg-group-commit.ts); and lz4
 * where the server has it.
 */
export async function newWriterClient(url: string, options: PgOptions = {}): Promise<pg.Client> {
  const client = await newClient(url, { ...options, role: 'writer' }, true, ['enable_seqscan=off', 'plan_cache_mode=force_generic_plan']);
  try {
    await client.query(
      `SELECT set_config('default_toast_compression', 'lz4', false)
         WHERE EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))`,
    );
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return client;
}

/** Applies pending migrations under a session advisory lock: drizzle's migrator is not safe to run concurrently. */
export async function migrateLedger(url: string): Promise<void> {
  const client = await newClient(url, { statementTimeoutMs: 0, lockTimeoutMs: 0 });
  try {
    await client.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, MIGRATE_LOCK]);
    try {
      // Generated by drizzle-kit from the derived schema (`npm run db:generate:pg`).
      await migrate(drizzle(client), { migrationsFolder: join(packageRoot(), 'drizzle-pg') });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, MIGRATE_LOCK]);
    }
  } finally {
    await client.end();
  }
}

/** The URL without its password, for logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** PostgreSQL's SQLSTATE of an error, if it has one. */
export const sqlState = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof (error as { code: unknown }).code === 'string' ? (error as { code: string }).code : undefined;

/**
 * Whether a query's values hold U+0000, which PostgreSQL's text refuses (22021). No stored value holds it,
 * so a lookup by such a value (a path parameter) finds nothing, as on SQLite.
 */
export const holdsNul = (values: readonly unknown[]): boolean => values.some((value) => typeof value === 'string' && value.includes('\u0000'));

/** The name a statement is prepared under on each connection: its text's hash (one text, one name). */
const statementNames = new Map<string, string>();
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `ledger_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}
