import { describe, expect, it } from 'vitest';
import { CRASH_CYCLES, CrashWorkload, crashTestTimeout, setUpCrashDatabase, startServer, type Server } from '../../crash/crash-workload.js';
import { createTestDatabaseLocation } from '../../support/ledger.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { sleep } from './instances.js';

/** Fewer than the one-server crash test: each cycle runs two servers. */
const CYCLES = Math.max(2, Math.ceil(CRASH_CYCLES / 2));

/**
 * Two `import-ledger serve` processes on one PostgreSQL database behind a
 * client that fails over (as a load balancer does): one of them is killed
 * with SIGKILL under load, the other keeps serving, and the writes whose
 * answers died with the first are sent again, with the same Idempotency-Key,
 * to the second at once. The crash test's guarantees hold: every write is
 * acknowledged (none lost), each stored once, the database sound, the global
 * positions gapless, the projections equal to a rebuild.
 */
describe('SIGKILL of one of two server processes under load (PostgreSQL)', () => {
  if (skipWithoutPostgres()) return;
  it(`after ${CYCLES} kills, one a cycle: the survivor serves on, nothing is lost, nothing stored twice`, async () => {
    const db = await createTestDatabaseLocation('postgres');
    const servers: (Server | null)[] = [null, null];
    try {
      const workload = new CrashWorkload(await setUpCrashDatabase(db.location));
      const alive = (order: readonly number[]) => order.flatMap((i) => (servers[i] ? [servers[i].base] : []));
      // Worker i goes to server i % 2 first, to the other when its connection dies.
      const basesOf = (worker: number) => () => alive([worker % 2, (worker + 1) % 2]);
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        for (const i of [0, 1]) servers[i] ??= await startServer(db.location);
        let running = true;
        const load = workload.load(8, () => running, basesOf);
        await sleep(300 + Math.random() * 700);
        const victim = servers[cycle % 2]!;
        servers[cycle % 2] = null;
        victim.child.kill('SIGKILL');
        await victim.exited;
        // The survivor carries the whole load for a while: at least 700 ms, and until it acknowledged a new
        // stage (on a loaded machine that can take longer; 30 s without one fails below).
        const acknowledgedBefore = workload.acknowledged.stage.size;
        const until = Date.now() + 30_000;
        await sleep(700);
        while (workload.acknowledged.stage.size <= acknowledgedBefore && Date.now() < until) await sleep(50);
        running = false;
        await load;
        expect(workload.acknowledged.stage.size).toBeGreaterThan(acknowledgedBefore);
        expect(workload.lostWrites).toBe(0);
        await workload.verify(db);
      }
      // Some write's connection died with its server in the kills, and was answered by the other.
      expect(workload.failedOver).toBeGreaterThan(0);
      expect(workload.acknowledged.transactions.size).toBeGreaterThan(0);
      if (process.env['LEDGER_CRASH_CYCLES']) {
        console.log(`${CYCLES} kills of one of two servers: ${workload.acknowledged.stage.size} accounts, ${workload.failedOver} writes failed over, ${workload.replayed} answered from a stored response`);
      }
    } finally {
      for (const server of servers) {
        server?.child.kill('SIGKILL');
        await server?.exited;
      }
      await db.release();
    }
  }, crashTestTimeout(CYCLES * 2));
});
