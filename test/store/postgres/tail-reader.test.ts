import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredLedgerEvent } from '../../../src/store/event-store.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import {
  expectOnlyDomainErrors,
  expectWellFormedLog,
  openInstances,
  prng,
  SERIAL_SUPPLIER_ERRORS,
  settle,
  sleep,
  supplierHandle,
  tick,
  type Instances,
  type SupplierCommandKind,
} from './instances.js';

/**
 * The research's experiment 2 as a test: with positions assigned by a
 * sequence, a reader moving its cursor past the last position it saw misses
 * events that commit later at a lower position. Under
 * the write lock positions become visible in order, so a plain
 * `after=<cursor>` tail sees every event once, in order.
 */
describe('PostgreSQL: a tail reader during two instances\' writes', () => {
  if (skipWithoutPostgres()) return;
  let t: Instances;
  beforeEach(async () => {
    t = await openInstances();
  });
  afterEach(() => t.close());

  /** Tails with `read(after)` until `done()` and the log's end is reached; every page must continue exactly where the last one stopped. */
  async function tail(read: (after: number) => Promise<readonly StoredLedgerEvent[]>, done: () => number | null) {
    const seen: number[] = [];
    const skips: string[] = [];
    let cursor = 0;
    for (let loops = 0; loops < 50_000; loops++) {
      const end = done();
      const page = await read(cursor);
      for (const event of page) {
        if (event.globalPosition !== cursor + 1) skips.push(`after ${cursor} came ${event.globalPosition}`);
        seen.push(event.globalPosition);
        cursor = event.globalPosition;
      }
      if (end !== null && cursor >= end && page.length === 0) return { seen, skips };
      if (page.length === 0) await sleep(1);
    }
    throw new Error(`the tail did not reach the end (cursor ${cursor})`);
  }

  it('sees every event once, in order: positions 1..N, through log.open pages and through store.readAll', async () => {
    let end: number | null = null;
    const pages = tail(
      async (after) => {
        const snapshot = await t.a.log.open({ after, limit: 100 });
        const events: StoredLedgerEvent[] = [];
        for await (const batch of snapshot) events.push(...batch);
        return events;
      },
      () => end,
    );
    const readAll = tail(
      (after) => t.b.store.readAll(after, 100),
      () => end,
    );

    const random = prng(7);
    const shared = Array.from({ length: 4 }, (_, i) => `SHARED-${i}`);
    const calls: Promise<PromiseSettledResult<unknown>>[] = [];
    for (const code of shared) calls.push(settle(supplierHandle(t.a, 'create', code)), settle(supplierHandle(t.b, 'create', code)));
    for (let round = 0; round < 40; round++) {
      for (const [name, ledger] of [['A', t.a], ['B', t.b]] as const) {
        calls.push(settle(supplierHandle(ledger, 'create', `${name}-${round}`)));
        for (let i = 0; i < 4; i++) {
          const kind: SupplierCommandKind = random() < 0.5 ? 'pause' : 'resume';
          calls.push(settle(supplierHandle(ledger, kind, shared[Math.floor(random() * shared.length)]!)));
        }
      }
      // Spread the commands over many batches of both instances, with the readers reading in between.
      await (round % 4 === 3 ? sleep(2) : tick());
    }
    expectOnlyDomainErrors(await Promise.all(calls), SERIAL_SUPPLIER_ERRORS);
    const rows = await expectWellFormedLog(t);
    end = rows.length;
    expect(end).toBeGreaterThan(100);

    const all = Array.from({ length: end }, (_, i) => i + 1);
    for (const { seen, skips } of [await pages, await readAll]) {
      expect(skips.slice(0, 5), 'no page skipped a position').toEqual([]);
      expect(seen).toEqual(all);
    }
  });
});
