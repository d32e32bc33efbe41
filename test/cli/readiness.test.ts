import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { networkInterfaces } from 'node:os';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../projections/index.js';
import { createImportSupplier } from '../../src/application/operator.js';
import { openLedger, type LedgerLocation } from '../../src/ledger.js';
import { LOCK_CLASS, STARTUP_REBUILD_LOCK } from '../../src/store/postgres/pg-database.js';
import { createTestDatabaseLocation, databaseEnv, operator, type TestDatabaseLocation, type TestStore } from '../support/ledger.js';
import { parseScrape } from '../support/metrics.js';
import { freePort } from '../support/net.js';
import { postgresAvailable, skipWithoutPostgres } from '../support/postgres.js';
import { BIN, CLI_TEST_TIMEOUT_MS, PROJECT_ROOT, cliEnv } from './run-cli.js';

/**
 * /readyz of a real `serve` process: 503 `starting` until migrations and start-up rebuilds are
 * done, 200 then, 503 `draining` after SIGTERM while requests are still answered, and the process then stops.
 */

interface Served {
  readonly child: ChildProcess;
  readonly base: string;
  readonly metrics: string;
  readonly exited: Promise<unknown>;
  /** Exited, and its stderr read to the end. */
  readonly closed: Promise<unknown>;
  stderr(): string;
}

async function startServe(location: LedgerLocation, env: Record<string, string> = {}): Promise<Served> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: PROJECT_ROOT,
    env: cliEnv({ ...databaseEnv(location), HOST: '127.0.0.1', PORT: String(port), LEDGER_METRICS_PORT: String(metricsPort), NODE_ENV: 'production', ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return { child, base: `http://127.0.0.1:${port}`, metrics: `http://127.0.0.1:${metricsPort}/metrics`, exited: once(child, 'exit'), closed: once(child, 'close'), stderr: () => stderr };
}

/** GET, or null while nothing listens yet. */
async function probe(url: string): Promise<{ status: number; body: Record<string, unknown> } | null> {
  try {
    const res = await fetch(url);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return null;
  }
}

async function until<T>(served: Served, what: string, check: () => Promise<T | null | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (served.child.exitCode !== null) throw new Error(`serve exited (${served.child.exitCode}) before ${what}\n${served.stderr()}`);
    const result = await check();
    if (result) return result;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}\n${served.stderr()}`);
}

async function stop(served: Served | undefined): Promise<void> {
  if (!served || served.child.exitCode !== null || served.child.signalCode !== null) return;
  served.child.kill('SIGKILL');
  await served.exited;
}

/** A database whose import_suppliers projection is stale (its version recorded as 0, its rows gone): start-up rebuilds it. */
async function staleDatabase(store: TestStore): Promise<TestDatabaseLocation> {
  const db = await createTestDatabaseLocation(store);
  const ledger = await openLedger(db.location);
  try {
    for (let i = 0; i < 3; i++) await createImportSupplier(ledger, { code: `READY_${i}`, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    await ledger.projections.stale(inlineProjections);
  } finally {
    await ledger.close();
  }
  await db.execute("UPDATE projection_versions SET version = 0 WHERE name = 'import_suppliers'");
  await db.execute('DELETE FROM import_suppliers');
  return db;
}

/** pino's levels. */
const INFO = 30;
const ERROR = 50;

/** The lines of the process's JSON log, in order. */
function logLines(served: Served): Record<string, unknown>[] {
  return served
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The log's request lines (one per request answered). */
const requestLines = (served: Served) => logLines(served).filter((line) => typeof line['path'] === 'string' && typeof line['status'] === 'number');

let served: Served | undefined;
let db: TestDatabaseLocation | undefined;
afterEach(async () => {
  await stop(served);
  await db?.release();
  served = undefined;
  db = undefined;
});

describe('/readyz during a slow start-up rebuild (PostgreSQL: another instance holds the start-up rebuild)', () => {
  if (skipWithoutPostgres()) return;
  it(
    'answers 503 starting (and every API request 503 service_starting) until the rebuild is done, then 200',
    async () => {
      db = await staleDatabase('postgres');
      const url = (db.location as { postgresUrl: string }).postgresUrl;
      // Another instance is rebuilding: this one waits at the start-up rebuild's lock, as long as it is held.
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      try {
        await other.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, STARTUP_REBUILD_LOCK]);
        const s = (served = await startServe(db.location));
        const starting = await until(s, '/readyz to answer', () => probe(`${s.base}/readyz`));
        expect(starting).toEqual({ status: 503, body: { status: 'starting', detail: expect.any(String) } });
        // Still starting: the rest of the API refuses in the error shape, and the metrics say not ready.
        const api = await probe(`${s.base}/v1/data-import/pending-account-import-processes/READY_0/`);
        expect(api?.status).toBe(503);
        expect(api?.body).toMatchObject({ code: 'service_starting', errors: [{ code: 'service_starting', attr: 'non_field_errors' }] });
        expect((await probe(`${s.base}/healthz`))?.body).toMatchObject({ status: 'starting' });
        const metrics = parseScrape(await (await fetch(s.metrics)).text());
        expect(metrics.value('ledger_ready')).toBe(0);
        expect((await probe(`${s.base}/readyz`))?.status).toBe(503);
        await other.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, STARTUP_REBUILD_LOCK]);
      } finally {
        await other.end();
      }
      const s = served!;
      await until(s, '/readyz 200', async () => (await probe(`${s.base}/readyz`))?.status === 200);
      expect((await probe(`${s.base}/readyz`))?.body).toEqual({ status: 'ready' });
      // Ready only once rebuilt: the projection's rows are back.
      expect(await db.execute('SELECT code FROM import_suppliers ORDER BY code')).toEqual([{ code: 'READY_0' }, { code: 'READY_1' }, { code: 'READY_2' }]);
      await until(s, 'the rebuilt log line', async () => s.stderr().includes('projections rebuilt'));
      // The start-up probes' 503s are expected while the instance starts: info lines, not errors.
      await until(s, 'the listening log line', async () => s.stderr().includes('import-ledger listening'));
      const probes = requestLines(s).filter((line) => line['path'] === '/readyz' && line['status'] === 503);
      expect(probes.length).toBeGreaterThanOrEqual(2);
      expect(probes.filter((line) => line['level'] !== INFO)).toEqual([]);
      expect(parseScrape(await (await fetch(s.metrics)).text()).value('ledger_ready')).toBe(1);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe.each((['sqlite', 'postgres'] as const).filter((store) => store === 'sqlite' || postgresAvailable()))('serve on %s', (store) => {
  it(
    'is never ready before its start-up rebuild is done: every /readyz answer before it is 503 starting',
    async () => {
      db = await staleDatabase(store);
      const s = (served = await startServe(db.location));
      const answers: number[] = [];
      await until(s, '/readyz 200', async () => {
        const res = await probe(`${s.base}/readyz`);
        if (!res) return false;
        answers.push(res.status);
        if (res.status === 503) expect(res.body['status']).toBe('starting');
        // The rebuild's rows are there by the time the first 200 is given.
        if (res.status === 200) expect((await db!.execute('SELECT count(*) AS n FROM import_suppliers'))[0]).toEqual({ n: 3 });
        return res.status === 200;
      });
      expect(answers.filter((status) => status !== 503 && status !== 200)).toEqual([]);
      // The child's log reaches this process through a pipe, possibly after its answers: wait for the line.
      await until(s, 'the listening log line', async () => s.stderr().includes('import-ledger listening'));
      expect(s.stderr().indexOf('projections rebuilt')).toBeGreaterThan(-1);
      expect(s.stderr().indexOf('projections rebuilt')).toBeLessThan(s.stderr().indexOf('import-ledger listening'));
      // An orchestrator polls a starting instance many times: its expected 503s are info, not errors.
      const starting = requestLines(s).filter((line) => line['path'] === '/readyz' && line['status'] === 503);
      expect(starting).toHaveLength(answers.filter((status) => status === 503).length);
      expect(starting.filter((line) => line['level'] !== INFO)).toEqual([]);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'after SIGTERM answers /readyz 503 draining while it still serves requests, then stops',
    async () => {
      db = await createTestDatabaseLocation(store);
      const s = (served = await startServe(db.location, { LEDGER_DRAIN_DELAY_MS: '8000' }));
      await until(s, '/readyz 200', async () => (await probe(`${s.base}/readyz`))?.status === 200);
      s.child.kill('SIGTERM');
      const draining = await until(s, '/readyz 503', async () => {
        const res = await probe(`${s.base}/readyz`);
        return res?.status === 503 ? res : null;
      });
      expect(draining.body).toEqual({ status: 'draining', detail: expect.any(String) });
      // Draining is not dead: liveness holds, and the API answers what it is still sent.
      expect(await probe(`${s.base}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
      const api = await fetch(`${s.base}/v1/data-import/pending-account-import-processes/ANY/`);
      expect(api.status).toBe(401);
      const [code] = (await s.closed) as [number | null];
      expect(code).toBe(0);
      expect(s.stderr()).toContain('draining');
      // Once started, a 503 is worth an operator's look: it stays an error.
      const log = logLines(s);
      const drainingFrom = log.findIndex((line) => String(line['msg']).startsWith('draining'));
      expect(drainingFrom).toBeGreaterThan(-1);
      expect(log.slice(drainingFrom).filter((line) => line['path'] === '/readyz' && line['status'] === 503).map((line) => line['level'])).toEqual([ERROR]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('the metrics listener is on its own address, loopback by default', () => {
  /** This machine's first non-loopback IPv4 address, if it has one. */
  const outward = Object.values(networkInterfaces())
    .flat()
    .find((address) => address?.family === 'IPv4' && !address.internal)?.address;

  it.each([
    ['unset: loopback even when the API is on every interface', {}, '127.0.0.1'],
    ['LEDGER_METRICS_HOST=0.0.0.0', { LEDGER_METRICS_HOST: '0.0.0.0' }, '0.0.0.0'],
  ])(
    '%s',
    async (_how, env, host) => {
      db = await createTestDatabaseLocation('sqlite');
      const s = (served = await startServe(db.location, { HOST: '0.0.0.0', ...env }));
      await until(s, '/readyz 200', async () => (await probe(`${s.base}/readyz`))?.status === 200);
      const line = logLines(s).find((l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('metrics on '));
      expect(line).toMatchObject({ host });
      expect((await fetch(s.metrics)).status).toBe(200);
      if (outward === undefined) return;
      // From another interface: the API answers; the metrics answer only when opened.
      const port = new URL(s.metrics).port;
      expect((await fetch(`${s.base.replace('127.0.0.1', outward)}/healthz`)).status).toBe(200);
      const reached = await fetch(`http://${outward}:${port}/metrics`).then(
        (res) => res.status,
        () => 'refused',
      );
      expect(reached).toBe(host === '0.0.0.0' ? 200 : 'refused');
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
