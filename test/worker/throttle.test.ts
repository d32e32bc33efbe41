import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setServiceConfig } from '../../src/application/operator.js';
import { SlidingWindowThrottle } from '../../src/populate/throttle.js';
import { EMPTY_WINDOW, takeWindowStart, type WindowState } from '../../src/store/shared-limits.js';
import { fakeSleep } from '../support/fake-sleep.js';
import { createTestLedger, operator, TestClock, type TestLedger } from '../support/ledger.js';
import { newBatch, prm, scriptedOperator, testWorker, type OperatorCall } from './worker-support.js';

/** Most calls that started in any window [t, t + 1000) of the virtual clock. */
function busiestSecond(times: readonly number[]): number {
  return Math.max(0, ...times.map((t) => times.filter((u) => u >= t && u < t + 1_000).length));
}

describe('takeWindowStart (the sliding window both stores apply)', () => {
  it('property: never more than `limit` starts in any window, and a refusal names the exact time a start becomes possible', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 2_000 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 700 }), fc.boolean()), { minLength: 1, maxLength: 60 }),
        (limit, windowMs, steps) => {
          let state: WindowState = EMPTY_WINDOW;
          let now = 0;
          const starts: number[] = [];
          for (const [gap, pause] of steps) {
            now += gap;
            if (pause) state = { ...state, pausedUntilMs: Math.max(state.pausedUntilMs, now + gap) };
            const taken = takeWindowStart(state, now, limit, windowMs);
            state = taken.state;
            if (taken.waitMs === null) {
              starts.push(now);
              expect(now).toBeGreaterThanOrEqual(state.pausedUntilMs);
              continue;
            }
            expect(taken.waitMs).toBeGreaterThan(0);
            // Asking again when told succeeds (the wait is not longer than needed), and not a millisecond before.
            expect(takeWindowStart(state, now + taken.waitMs - 1, limit, windowMs).waitMs).not.toBeNull();
            expect(takeWindowStart(state, now + taken.waitMs, limit, windowMs).waitMs).toBeNull();
          }
          for (let i = 0; i + limit < starts.length; i++) expect(starts[i + limit]! - starts[i]!).toBeGreaterThanOrEqual(windowMs);
          expect(state.startsMs.length).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });
});

describe('SlidingWindowThrottle (fake clock)', () => {
  it('lets at most N starts into any one-second window, and no fewer than it may', async () => {
    const clock = new TestClock();
    const throttle = new SlidingWindowThrottle(clock.read, fakeSleep(clock));
    const t0 = clock.now.getTime();
    const starts: number[] = [];
    for (let i = 0; i < 10; i++) {
      await throttle.acquire(async () => 3);
      starts.push(clock.now.getTime() - t0);
    }
    expect(starts).toEqual([0, 0, 0, 1_000, 1_000, 1_000, 2_000, 2_000, 2_000, 3_000]);
  });

  it('reads the limit on every acquire, and holds everything back while paused', async () => {
    const clock = new TestClock();
    const throttle = new SlidingWindowThrottle(clock.read, fakeSleep(clock));
    const t0 = clock.now.getTime();
    let limit = 1;
    const starts: number[] = [];
    for (let i = 0; i < 4; i++) {
      if (i === 2) limit = 5;
      await throttle.acquire(async () => limit);
      starts.push(clock.now.getTime() - t0);
    }
    expect(starts).toEqual([0, 1_000, 1_000, 1_000]);
    await throttle.pauseUntil(t0 + 30_000);
    await throttle.acquire(async () => limit);
    expect(clock.now.getTime() - t0).toBe(30_000);
  });

  it('gives up without a slot when its signal aborts', async () => {
    const clock = new TestClock();
    const throttle = new SlidingWindowThrottle(clock.read, fakeSleep(clock));
    const controller = new AbortController();
    controller.abort();
    expect(await throttle.acquire(async () => 1, controller.signal)).toBe(false);
  });
});

describe('populate worker throttle (requests counted per window of the fake clock)', () => {
  let t: TestLedger;
  let calls: OperatorCall[];
  beforeEach(async () => {
    t = await createTestLedger();
    calls = [];
  });
  afterEach(async () => {
    await t.close();
  });

  const operators = () => ({
    ELECTRICITY: scriptedOperator('ELECTRICITY', t.clock, calls),
    GAS: scriptedOperator('GAS', t.clock, calls),
  });

  it('calls an operator at most populate-rate-per-second (default 5) times in any second', async () => {
    await newBatch(t.ledger, Array.from({ length: 23 }, (_, i) => prm(i)), []);
    const t0 = t.clock.now.getTime();
    await testWorker(t.ledger, t.clock, operators()).drain();
    const times = calls.map((c) => c.at - t0);
    expect(times).toHaveLength(23);
    expect(busiestSecond(times)).toBe(5);
    for (let i = 0; i + 5 < times.length; i++) expect(times[i + 5]! - times[i]!).toBeGreaterThanOrEqual(1_000);
    // and it does not go slower than allowed: 23 calls at 5 a second start within 4 seconds
    expect(Math.max(...times)).toBe(4_000);
  });

  it('follows `config set populate-rate-per-second`', async () => {
    await setServiceConfig(t.ledger, 'populate-rate-per-second', 2, operator);
    await newBatch(t.ledger, Array.from({ length: 9 }, (_, i) => prm(i)), []);
    const t0 = t.clock.now.getTime();
    await testWorker(t.ledger, t.clock, operators()).drain();
    const times = calls.map((c) => c.at - t0);
    expect(busiestSecond(times)).toBe(2);
    expect(times).toEqual([0, 0, 1_000, 1_000, 2_000, 2_000, 3_000, 3_000, 4_000]);
  });

  it('takes the requests in order', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => prm(100 - i));
    await newBatch(t.ledger, ids.slice(0, 6), []);
    await newBatch(t.ledger, ids.slice(6), []);
    await testWorker(t.ledger, t.clock, operators(), { maxInFlightPerOperator: 1 }).drain();
    expect(calls.map((c) => c.identifier)).toEqual(ids);
  });
});
