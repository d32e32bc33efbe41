import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CrashWorkload, SUPPLIER, setUpCrashDatabase, startServer, type Server } from '../../crash/crash-workload.js';
import type { TestDatabaseLocation } from '../../support/ledger.js';
import { parseScrape } from '../../support/metrics.js';
import { freePort } from '../../support/net.js';
import { executeOn } from '../../support/postgres.js';
import { createTempCluster, tempClusterUnavailable } from '../../support/temp-cluster.js';
import { sleep } from './instances.js';
import { skipBecause } from '../../support/skip.js';

/** Crashes of the server: one in the default run; LEDGER_DB_CRASH_RUNS=10 for the figures of bench/db-crash-runs.sh. */
const RUNS = Number(process.env['LEDGER_DB_CRASH_RUNS'] ?? 1);
/** How long the server stays down in each crash. */
const DOWN_MS = 2_000;

const alive = (server: Server) => server.child.exitCode === null && server.child.signalCode === null;

/** GET `path`: its status, `Retry-After` and JSON body (null when nothing answered). */
async function get(url: string, token?: string): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> } | null> {
  try {
    const res = await fetch(url, token ? { headers: { authorization: `Token ${token}` } } : {});
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
  } catch {
    return null;
  }
}

interface RunFigures {
  readonly run: number;
  /** Writes acknowledged during the run. */
  readonly acknowledged: number;
  /** Writes answered 503 at least once (their outcome unknown to the client until retried with their key). */
  readonly unknownOutcomes: number;
  /** Of those, the ones a retry found written (answered from the stored response). */
  readonly unknownThenReplayed: number;
  /** From the server's start (pg_ctl start answered: it accepts connections) until the first write acknowledged after it. */
  readonly secondsToRecovery: number;
  /** From the crash until then: the outage as the clients saw it (the server down for DOWN_MS of it). */
  readonly secondsFromCrash: number;
}

/**
 * The database server of two `import-ledger serve` processes crashes (`pg_ctl stop -m immediate`) under a
 * load of keyed writes and is started again ~2 s later, on a temporary cluster of the test's own (never
 * the shared server). During the outage both processes live: `/healthz` 200, `/readyz` 503, reads and
 * writes 503 `store_unavailable` with `Retry-After`, counted in `ledger_store_unavailable_total`. Once
 * the server is back they serve again without a restart, within seconds; each write answered 503 is
 * sent again with its key, and afterwards every acknowledged write is stored once, the log gapless, the
 * projections equal to a rebuild.
 */
describe('PostgreSQL: the database server crashes and restarts under load (a temporary cluster)', () => {
  const unavailable = tempClusterUnavailable();
  if (skipBecause(unavailable && `a temporary PostgreSQL cluster cannot be made: ${unavailable}`)) return;
  it(`${RUNS} crash(es) of the server: the instances live through each, answer 503 meanwhile, and serve again by themselves`, async () => {
    const cluster = await createTempCluster();
    const location = { postgresUrl: cluster.url };
    const db: TestDatabaseLocation = { store: 'postgres', location, execute: (sql) => executeOn(cluster.url, sql, { numbers: true }), release: async () => undefined };
    const servers: Server[] = [];
    try {
      const token = await setUpCrashDatabase(location);
      const metricsPort = await freePort();
      servers.push(await startServer(location, { LEDGER_METRICS_PORT: String(metricsPort) }), await startServer(location));
      const workload = new CrashWorkload(token, { retryUnavailable: true });
      const figures: RunFigures[] = [];
      const acknowledged = () => Object.values(workload.acknowledged).reduce((sum, set) => sum + set.size, 0);
      for (let run = 1; run <= RUNS; run++) {
        const [ackedBefore, unknownBefore, replayedBefore] = [acknowledged(), workload.unknownOutcomes.size, workload.unknownThenReplayed];
        let running = true;
        const load = workload.load(8, () => running, (worker) => () => [servers[worker % 2]!.base]);
        await sleep(700);
        await cluster.stop('immediate');
        const downAt = Date.now();
        for (const server of servers) {
          expect((await get(`${server.base}/healthz`))?.status, 'liveness during the outage').toBe(200);
          expect(await get(`${server.base}/readyz`), 'readiness during the outage').toMatchObject({ status: 503, retryAfter: '1', body: { status: 'unavailable' } });
          const read = await get(`${server.base}/v1/data-import/account-transfer-status/${SUPPLIER}/CRASH-0/`, token);
          expect(read, 'a read during the outage').toMatchObject({ status: 503, retryAfter: '1', body: { code: 'store_unavailable' } });
        }
        await sleep(Math.max(0, DOWN_MS - (Date.now() - downAt)));
        await cluster.start();
        const upAt = Date.now();
        const deadline = upAt + 30_000;
        while (workload.lastAcknowledgedAt <= upAt && Date.now() < deadline) await sleep(20);
        expect(workload.lastAcknowledgedAt, 'a write acknowledged after the server is back').toBeGreaterThan(upAt);
        const recoveredAt = workload.lastAcknowledgedAt;
        for (const server of servers) {
          const readyBy = Date.now() + 10_000;
          while ((await get(`${server.base}/readyz`))?.status !== 200 && Date.now() < readyBy) await sleep(50);
          expect((await get(`${server.base}/readyz`))?.status, 'readiness once the server is back').toBe(200);
        }
        await sleep(500);
        running = false;
        await load;
        for (const server of servers) expect(alive(server), 'the instance after the crash').toBe(true);
        expect(workload.lostWrites).toBe(0);
        await workload.verify(db);
        figures.push({
          run,
          acknowledged: acknowledged() - ackedBefore,
          unknownOutcomes: workload.unknownOutcomes.size - unknownBefore,
          unknownThenReplayed: workload.unknownThenReplayed - replayedBefore,
          secondsToRecovery: (recoveredAt - upAt) / 1000,
          secondsFromCrash: (recoveredAt - downAt) / 1000,
        });
      }
      const scrape = parseScrape(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
      expect(scrape.value('ledger_store_unavailable_total', { reason: 'unreachable' }), 'outage answers counted').toBeGreaterThan(0);
      if (RUNS > 1 || process.env['LEDGER_DB_CRASH_REPORT']) {
        const report = { runs: figures, downSeconds: DOWN_MS / 1000 };
        if (process.env['LEDGER_DB_CRASH_REPORT']) writeFileSync(process.env['LEDGER_DB_CRASH_REPORT'], `${JSON.stringify(report, null, 2)}\n`);
        console.log(figures.map((f) => `run ${f.run}: ${f.acknowledged} writes acknowledged, ${f.unknownOutcomes} unknown outcomes (${f.unknownThenReplayed} found written on retry), ${f.secondsToRecovery.toFixed(2)} s to recovery (${f.secondsFromCrash.toFixed(2)} s from the crash)`).join('\n'));
      }
    } finally {
      for (const server of servers) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
      await cluster.destroy();
    }
  }, 120_000 + RUNS * 40_000);
});
