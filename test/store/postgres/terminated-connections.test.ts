import { describe, expect, it } from 'vitest';
import { CrashWorkload, setUpCrashDatabase, startServer, type Server } from '../../crash/crash-workload.js';
import { createTestDatabaseLocation } from '../../support/ledger.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { sleep } from './instances.js';

/**
 * Each kind of connection a serving instance holds, by its application_name (pg-database.ts
 * ConnectionRole) or by what it last ran, and whether every serving instance under this load has one.
 */
const KINDS: readonly { readonly kind: string; readonly where: string; readonly always: boolean }[] = [
  { kind: 'the writer', where: "application_name = 'import-ledger/writer'", always: true },
  // Opened by a key claimed in the store before its request runs (a payment instruction's): this load's keys are claimed with their writes.
  { kind: 'the Idempotency-Key lock holder', where: "application_name = 'import-ledger/keys'", always: false },
  { kind: 'LISTEN', where: "application_name = 'import-ledger/listen'", always: true },
  { kind: 'a pool connection reading a key', where: "application_name = 'import-ledger' AND query ILIKE '%idempotency_keys%'", always: true },
  { kind: 'a pool connection of the read generation', where: "application_name = 'import-ledger' AND query ILIKE '%read_generation%'", always: true },
  { kind: "the limits' slot holder", where: "application_name = 'import-ledger/slots'", always: false },
  { kind: 'every connection at once', where: "application_name LIKE 'import-ledger%'", always: true },
];

const alive = (server: Server) => server.child.exitCode === null && server.child.signalCode === null;

/**
 * `pg_terminate_backend` on each kind of connection two `import-ledger serve` processes hold, one kind
 * after another, under a load of keyed writes (and a live SSE reader on each, which holds LISTEN): neither
 * process ends, every request is answered with success or 503 `store_unavailable` (retried with its key),
 * the service writes again within seconds of each kill, and nothing acknowledged is lost or stored twice.
 */
describe('PostgreSQL: the backends of a serving instance are terminated under load', () => {
  if (skipWithoutPostgres()) return;
  it('each kind of connection, one after another: the processes live on, answer 2xx or 503, and recover', async () => {
    const db = await createTestDatabaseLocation('postgres');
    const servers: Server[] = [];
    const feeds = new AbortController();
    try {
      const token = await setUpCrashDatabase(db.location);
      const workload = new CrashWorkload(token, { retryUnavailable: true });
      for (let i = 0; i < 2; i++) servers.push(await startServer(db.location));
      // A live SSE reader on each instance: it holds that instance's LISTEN connection.
      for (const server of servers) {
        void fetch(`${server.base}/v1/data-import/events/`, { headers: { authorization: `Token ${token}`, accept: 'text/event-stream' }, signal: feeds.signal })
          .then(async (res) => {
            for await (const _ of res.body!);
          })
          .catch(() => undefined);
      }
      let running = true;
      const load = workload.load(8, () => running, (worker) => () => [servers[worker % 2]!.base]);
      await sleep(500);
      const terminated: Record<string, number> = {};
      for (const { kind, where, always } of KINDS) {
        let pids: unknown[] = [];
        for (let tries = 0; pids.length === 0 && tries < (always ? 200 : 20); tries++) {
          pids = await db.execute(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND ${where}`,
          );
          if (pids.length === 0) await sleep(25);
        }
        terminated[kind] = pids.length;
        if (always) expect(pids.length, `a backend of ${kind}`).toBeGreaterThan(0);
        // The service writes again within seconds: a new account staged after the kill.
        const before = workload.acknowledged.stage.size;
        const deadline = Date.now() + 15_000;
        while (workload.acknowledged.stage.size <= before + 1 && Date.now() < deadline) await sleep(50);
        expect(workload.acknowledged.stage.size, `writes after killing ${kind}`).toBeGreaterThan(before + 1);
        for (const server of servers) expect(alive(server), `the process after killing ${kind}`).toBe(true);
      }
      running = false;
      await load;
      for (const server of servers) expect(alive(server)).toBe(true);
      expect(workload.lostWrites).toBe(0);
      await workload.verify(db);
      if (process.env['LEDGER_CRASH_CYCLES']) {
        console.log(`terminated ${JSON.stringify(terminated)}; ${workload.acknowledged.stage.size} accounts, ${workload.unavailableAnswers} answers 503, ${workload.unknownOutcomes.size} writes retried after a 503`);
      }
    } finally {
      feeds.abort();
      for (const server of servers) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
      await db.release();
    }
  }, 180_000);
});
