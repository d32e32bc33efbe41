import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './net.js';

const run = promisify(execFile);

/** The PostgreSQL server binaries (initdb, pg_ctl): LEDGER_PG_BIN, else Debian's PostgreSQL 15. */
const BIN = process.env['LEDGER_PG_BIN'] ?? '/usr/lib/postgresql/15/bin';

/** Why a temporary cluster cannot be made here, or null when it can; under CI=true its absence is a failure. */
export function tempClusterUnavailable(): string | null {
  const why = existsSync(join(BIN, 'initdb')) && existsSync(join(BIN, 'pg_ctl')) ? null : `initdb and pg_ctl are not in ${BIN} (set LEDGER_PG_BIN)`;
  if (why && process.env['CI'] === 'true') throw new Error(`the database crash tests need a temporary PostgreSQL cluster under CI: ${why}`);
  return why;
}

/**
 * A PostgreSQL cluster of its own, in a temporary directory, on a free port of 127.0.0.1 (trust auth): a
 * test may stop it (`-m immediate` is a crash) and start it again, which it must never do to the shared
 * server on 5432. Run as the `postgres` user when the tests run as root (PostgreSQL refuses root).
 */
export interface TempCluster {
  /** The URL of its `ledger` database. */
  readonly url: string;
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  start(): Promise<void>;
  /** Stops it and deletes its directory. */
  destroy(): Promise<void>;
}

export async function createTempCluster(): Promise<TempCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-cluster-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  const as = async (command: string, args: readonly string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(BIN, command), ...args]] : [join(BIN, command), [...args]];
    await run(file, argv, { timeout: 60_000 });
  };
  if (asRoot) chownSync(dir, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
  const port = await freePort();
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  let running = false;
  const cluster: TempCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/ledger`,
    async start() {
      await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
      running = true;
    },
    async stop(mode = 'immediate') {
      await as('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      running = false;
    },
    async destroy() {
      if (running) await cluster.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await cluster.start();
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query('CREATE DATABASE ledger');
    } finally {
      await admin.end();
    }
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
