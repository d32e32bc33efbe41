import { afterEach, describe, expect, it } from 'vitest';
import { cachedFigures } from '../../src/observability/cached-figures.js';
import { servedMetrics } from '../support/metrics.js';

describe('cachedFigures', () => {
  it('reads once per max age, shares a read in flight, and does not keep a failure', async () => {
    let reads = 0;
    let fail = false;
    const read = cachedFigures(async () => {
      reads++;
      if (fail) throw new Error('database gone');
      return { n: reads };
    }, 60_000);
    const [a, b] = await Promise.all([read(), read()]);
    expect(a).toEqual({ n: 1 });
    expect(b).toBe(a);
    expect(await read()).toBe(a);
    expect(reads).toBe(1);

    const uncached = cachedFigures(async () => {
      reads++;
      if (fail) throw new Error('database gone');
      return reads;
    }, 0);
    fail = true;
    await expect(uncached()).rejects.toThrow('database gone');
    fail = false;
    expect(await uncached()).toBe(reads);
  });
});

describe('rebuild progress in the metrics', () => {
  let served: Awaited<ReturnType<typeof servedMetrics>> | undefined;
  afterEach(async () => {
    await served?.server.close();
  });

  it('shows a running rebuild, the position its projections reached, and returns to 0 when done', async () => {
    served = await servedMetrics();
    const { metrics } = served;
    let head = 40;
    metrics.watch({
      logPosition: async () => head,
      projections: ['import_suppliers', 'products'],
      workQueues: async () => ({ supplyPointRequests: [], welcomeEmails: { queued: 0, sending: 0, failed: 0 }, scheduledCreations: { waiting: 0, running: 0 } }),
      supplierFigures: async () => [],
    });
    metrics.rebuildStarted(['products']);
    metrics.rebuildProgress(25, 40);
    let scrape = await served.scrape();
    expect(scrape.value('ledger_projection_rebuild_events_read')).toBe(25);
    expect(scrape.value('ledger_projection_rebuild_events_total')).toBe(40);
    expect(scrape.value('ledger_projection_position', { projection: 'products' })).toBe(25);
    expect(scrape.value('ledger_projection_position', { projection: 'import_suppliers' })).toBe(40);
    metrics.rebuildDone();
    head = 41;
    scrape = await served.scrape();
    expect(scrape.value('ledger_projection_rebuild_events_read')).toBe(0);
    expect(scrape.value('ledger_projection_rebuild_events_total')).toBe(0);
    expect(scrape.value('ledger_projection_position', { projection: 'products' })).toBe(41);
  });

  it('counts a figure that cannot be read, and still answers the scrape', async () => {
    served = await servedMetrics();
    served.metrics.watch({
      logPosition: async () => {
        throw new Error('database gone');
      },
      projections: ['products'],
      workQueues: async () => {
        throw new Error('database gone');
      },
      supplierFigures: async () => [],
    });
    const scrape = await served.scrape();
    expect(scrape.value('ledger_metrics_collect_errors_total', { figures: 'work_queues' })).toBeGreaterThan(0);
    expect(scrape.value('ledger_metrics_collect_errors_total', { figures: 'projections' })).toBeGreaterThan(0);
  });
});
