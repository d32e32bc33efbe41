import { describe, expect, it } from 'vitest';
import { createTestDatabaseLocation } from '../support/ledger.js';
import { CRASH_CYCLES as CYCLES, CrashWorkload, crashTestTimeout, setUpCrashDatabase, startServer } from './crash-workload.js';

// Both SQLite writers: on the event loop, and in the writer thread (PostgreSQL ignores the setting).
describe.each(['inline', 'thread'])('crash safety (SIGKILL under concurrent stage/process/notes/transactions load, retried with Idempotency-Key), writer %s', (writer) => {
  it(`after ${CYCLES} kills: every acknowledged write is stored once, the database is sound, projections equal a rebuild`, async () => {
    const db = await createTestDatabaseLocation();
    try {
      const workload = new CrashWorkload(await setUpCrashDatabase(db.location));
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const server = await startServer(db.location, { LEDGER_SQLITE_WRITER: writer });
        const bases = () => [server.base];
        // First, the writes whose answers were lost in the last crash, again with the same keys.
        await workload.retryLost(bases);
        let running = true;
        const load = workload.load(8, () => running, () => bases);
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 700));
        server.child.kill('SIGKILL');
        running = false;
        await server.exited;
        await load;
        await workload.verify(db);
      }
      expect(workload.acknowledged.transactions.size).toBeGreaterThan(0);
      expect(workload.acknowledged.stage.size).toBeGreaterThan(0);
      if (process.env['LEDGER_CRASH_CYCLES']) console.log(`${CYCLES} cycles: ${workload.acknowledged.stage.size} accounts, ${workload.replayed} retries answered from a stored or rebuilt response`);
    } finally {
      await db.release();
    }
  }, crashTestTimeout(CYCLES));
});
