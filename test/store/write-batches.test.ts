import { describe, expect, it } from 'vitest';
import { BatchStats } from '../../src/store/write-batches.js';

describe('BatchStats: what the PostgreSQL writer logs at debug level', () => {
  it('sums an interval: batches by path, commands, the lock wait a batch and the lock held a command', () => {
    const stats = new BatchStats();
    stats.add({ units: 3, path: 'pipelined', lockWaitMs: 1, lockHeldMs: 6 });
    stats.add({ units: 1, path: 'redone', lockWaitMs: 3, lockHeldMs: 2 });
    stats.add({ units: 4, path: 'per-unit', lockWaitMs: 2, lockHeldMs: 8 });
    const summary = stats.take();
    expect(summary).toMatchObject({ batches: 3, units: 8, pipelined: 1, redone: 1, perUnit: 1, lockWaitMs: 2, lockHeldMsPerUnit: 2 });
    expect(summary.lockHeldShare).toBeGreaterThan(0);
    // A new interval starts empty.
    expect(stats.take()).toMatchObject({ batches: 0, units: 0, lockWaitMs: 0, lockHeldMsPerUnit: 0, lockHeldShare: 0 });
  });
});
