import { afterEach, describe, expect, it } from 'vitest';
import { supplyPointPopulateRequestStreamId } from '../../events/supply-point-populate.js';
import { inlineProjections } from '../../projections/index.js';
import type { OperatorAnswer } from '../../src/adapters/network-operators.js';
import { openLedger, type Ledger } from '../../src/ledger.js';
import { leaseForTimeout } from '../../src/populate/worker.js';
import { tempDatabaseFile, TestClock } from '../support/ledger.js';
import { endsPerRequest, found, hangUntilAborted, newBatch, pce, prm, scriptedOperator, testWorker, type OperatorCall } from './worker-support.js';

const LEASE_MS = leaseForTimeout(1_000);

/** One "process": a ledger opened on the shared file, with its own clock (started where the last one stopped). */
async function openProcess(file: string, at: Date): Promise<{ ledger: Ledger; clock: TestClock }> {
  const clock = new TestClock(new Date(at.getTime()));
  return { ledger: await openLedger({ sqliteFile: file }, { clock: clock.read }), clock };
}

describe('populate worker: stop or crash mid-batch, start again', () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function database() {
    const db = tempDatabaseFile();
    cleanups.push(db.cleanup);
    return db.file;
  }

  async function expectEveryRequestEndedOnce(ledger: Ledger, count: number) {
    const ends = await endsPerRequest(ledger);
    expect(ends.size).toBe(count);
    for (const [stream, list] of ends) expect({ stream, ends: list.length }).toEqual({ stream, ends: 1 });
  }

  /** Rebuilding the projections from the log gives exactly the live tables (supply_point_populate_batches, supply_point_populate_requests, supply_points among them). */
  async function expectReplayEqualsProjections(ledger: Ledger) {
    const { differences } = await ledger.projections.verify(inlineProjections);
    expect(differences).toEqual([]);
  }

  it('graceful stop: calls in flight give their claim back; the next worker finishes, no success called twice', async () => {
    const file = database();
    const first = await openProcess(file, new Date('2026-11-21T10:00:00.000Z'));
    const prms = Array.from({ length: 8 }, (_, i) => prm(i));
    const pces = Array.from({ length: 4 }, (_, i) => pce(i));
    const batchId = await newBatch(first.ledger, prms, pces);

    const calls: OperatorCall[] = [];
    const successes = new Map<string, number>();
    const answer = (id: string, _call: number, signal?: AbortSignal): Promise<OperatorAnswer> | OperatorAnswer => {
      // The fifth PRM and the second PCE never answer: they are in flight when the worker stops.
      if (id === prm(4) || id === pce(1)) return hangUntilAborted(signal);
      successes.set(id, (successes.get(id) ?? 0) + 1);
      return found(id);
    };
    let imported = 0;
    const worker = testWorker(
      first.ledger,
      first.clock,
      { ELECTRICITY: scriptedOperator('ELECTRICITY', first.clock, calls, answer), GAS: scriptedOperator('GAS', first.clock, calls, answer) },
      { maxInFlightPerOperator: 1 },
      (p) => {
        if (p.kind === 'imported' && ++imported === 5) void worker.stop();
      },
    );
    await worker.drain();
    const afterStop = await first.ledger.read.listPopulateRequests(batchId);
    expect(afterStop.filter((r) => r.status === 'CLAIMED')).toEqual([]);
    expect(afterStop.some((r) => r.status === 'PENDING')).toBe(true);
    const released = (await first.ledger.store.readAll(0, 100_000)).filter((s) => s.event.type === 'SupplyPointPopulateRequestReleased');
    expect(released.length).toBeGreaterThanOrEqual(1);
    await first.ledger.close();

    // "Restart": a new process on the same file; this time every operator answers.
    const second = await openProcess(file, first.clock.now);
    cleanups.push(() => second.ledger.close());
    const answerAll = (id: string) => {
      successes.set(id, (successes.get(id) ?? 0) + 1);
      return found(id);
    };
    await testWorker(second.ledger, second.clock, {
      ELECTRICITY: scriptedOperator('ELECTRICITY', second.clock, calls, answerAll),
      GAS: scriptedOperator('GAS', second.clock, calls, answerAll),
    }).drain();

    await expectEveryRequestEndedOnce(second.ledger, 12);
    expect([...successes.values()].every((n) => n === 1)).toBe(true);
    expect(successes.size).toBe(12);
    // a released attempt does not count: the request that hung was imported at attempt 1
    const rows = await second.ledger.read.listPopulateRequests(batchId);
    expect(rows.find((r) => r.identifier === prm(4))).toMatchObject({ status: 'IMPORTED', attempt: 1 });
    await expectReplayEqualsProjections(second.ledger);
  });

  it('crash: a claim left behind is taken over once its lease runs out; every id ends exactly once', async () => {
    const file = database();
    const first = await openProcess(file, new Date('2026-11-21T10:00:00.000Z'));
    const prms = Array.from({ length: 6 }, (_, i) => prm(i));
    const pces = Array.from({ length: 3 }, (_, i) => pce(i));
    const batchId = await newBatch(first.ledger, prms, pces);

    const calls: OperatorCall[] = [];
    const successes = new Map<string, number>();
    const succeed = (id: string) => {
      successes.set(id, (successes.get(id) ?? 0) + 1);
      return found(id);
    };
    // The process "dies" during the call for the fourth PRM: that call never returns, whatever the signal says.
    let crashed = false;
    const dying = (id: string): Promise<OperatorAnswer> | OperatorAnswer => {
      if (crashed) return new Promise<OperatorAnswer>(() => undefined);
      if (id === prm(3)) {
        crashed = true;
        return new Promise<OperatorAnswer>(() => undefined);
      }
      return succeed(id);
    };
    const worker = testWorker(
      first.ledger,
      first.clock,
      { ELECTRICITY: scriptedOperator('ELECTRICITY', first.clock, calls, dying), GAS: scriptedOperator('GAS', first.clock, calls, dying) },
      { maxInFlightPerOperator: 1, stopGraceMs: 10, leaseMs: LEASE_MS },
    );
    worker.start();
    // Until the worker reaches the fourth PRM (its writes before it go through the store: slower on a loaded machine).
    for (const until = Date.now() + 30_000; !crashed && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(crashed).toBe(true);
    await worker.stop(); // returns after the grace period, the hung call still "in flight"
    const claimedAt = first.clock.now;
    await first.ledger.close();

    const second = await openProcess(file, claimedAt);
    cleanups.push(() => second.ledger.close());
    const left = await second.ledger.read.listPopulateRequests(batchId);
    expect(left.find((r) => r.identifier === prm(3))).toMatchObject({ status: 'CLAIMED', attempt: 1 });

    await testWorker(
      second.ledger,
      second.clock,
      { ELECTRICITY: scriptedOperator('ELECTRICITY', second.clock, calls, succeed), GAS: scriptedOperator('GAS', second.clock, calls, succeed) },
      { leaseMs: LEASE_MS },
    ).drain();

    await expectEveryRequestEndedOnce(second.ledger, 9);
    expect(successes.size).toBe(9);
    expect([...successes.values()].every((n) => n === 1)).toBe(true);
    const rows = await second.ledger.read.listPopulateRequests(batchId);
    expect(rows.every((r) => r.status === 'IMPORTED')).toBe(true);
    // the dead worker's attempt counted; the take-over waited for the lease
    expect(rows.find((r) => r.identifier === prm(3))).toMatchObject({ attempt: 2 });
    expect(calls.filter((c) => c.identifier === prm(3))).toHaveLength(2);
    const claims = (await second.ledger.store.readStream(supplyPointPopulateRequestStreamId(batchId, 4))).flatMap((s) =>
      s.event.type === 'SupplyPointPopulateRequestClaimed' ? [Date.parse(s.event.data.claimedAt)] : [],
    );
    expect(claims).toHaveLength(2);
    expect(claims[1]! - claims[0]!).toBeGreaterThanOrEqual(LEASE_MS);
    await expectReplayEqualsProjections(second.ledger);
  });
});
