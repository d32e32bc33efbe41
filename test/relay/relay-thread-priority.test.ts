import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startServer } from '../crash/crash-workload.js';
import { createTestDatabaseLocation } from '../support/ledger.js';

/** Each thread of a process with its nice value (/proc/PID/task/TID/stat, field 19). */
function threadNices(pid: number): { tid: number; nice: number }[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return [{ tid: Number(tid), nice: Number(fields[16]) }];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

describe.skipIf(process.platform !== 'linux')('the relay thread', () => {
  it('runs at a CPU priority 10 below the requests\' (a higher nice value), every other thread of the service at the process\'s', async () => {
    const db = await createTestDatabaseLocation();
    const server = await startServer(db.location);
    try {
      const pid = server.child.pid!;
      const base = threadNices(pid).find((t) => t.tid === pid)!.nice;
      // The relay thread starts once the service listens.
      const deadline = Date.now() + 30_000;
      while (!threadNices(pid).some((t) => t.nice !== base) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const lowered = threadNices(pid).filter((t) => t.nice !== base);
      expect(lowered.map((t) => t.nice)).toEqual([Math.min(19, base + 10)]);
      expect(lowered[0]!.tid).not.toBe(pid);
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
      await db.release();
    }
  }, 60_000);
});
