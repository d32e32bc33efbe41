import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BackgroundWorker, runEachDueOnce, type BackgroundWorkerOptions, type Next } from '../../src/worker/background-worker.js';
import type { Sleep } from '../../src/worker/sleep.js';

const silent = pino({ level: 'silent' });

/** A sleep that records what was asked and returns at the next macrotask: no real waiting. */
function recordingSleep(): { sleep: Sleep; waits: number[] } {
  const waits: number[] = [];
  const sleep: Sleep = async (ms) => {
    waits.push(ms);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { sleep, waits };
}

/** A turn that plays `script` (an Error is thrown), then answers `done`. */
function scripted(script: readonly (Next | Error)[]): { turn: () => Promise<Next>; turns: () => number } {
  let i = 0;
  return {
    turns: () => i,
    turn: async () => {
      const step = script[i++] ?? 'done';
      if (step instanceof Error) throw step;
      return step;
    },
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const worker = (options: Partial<BackgroundWorkerOptions> & Pick<BackgroundWorkerOptions, 'turn'>) =>
  new BackgroundWorker({ name: 'test worker', logger: silent, idlePollMs: 100, ...options });

/** Lets the loop run until `done()` holds (macrotasks only: the loop never waits on real time here). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}

describe('BackgroundWorker', () => {
  it('given turns that work, idle and finish, when it drains, then it turns again at once, waits idlePollMs when idle, and ends at done', async () => {
    const { sleep, waits } = recordingSleep();
    const { turn, turns } = scripted(['again', 'again', 'idle', 'again', 'idle']);
    await worker({ turn, sleep }).drain();
    expect(turns()).toBe(6);
    expect(waits).toEqual([100, 100]);
  });

  it('given a serving worker, when a turn finds nothing left to do, then it waits idlePollMs and looks again instead of ending', async () => {
    const { sleep, waits } = recordingSleep();
    const { turn, turns } = scripted([]);
    const w = worker({ turn, sleep });
    w.start();
    await until(() => turns() >= 3);
    await w.stop();
    expect(waits.slice(0, 2)).toEqual([100, 100]);
    expect(w.isRunning).toBe(false);
  });

  it('given failing turns, when it runs, then each is logged and retried after a wait that doubles up to maxBackoffMs, and a success resets it', async () => {
    const { sleep, waits } = recordingSleep();
    const lines: { msg: string; failures: number }[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string; failures: number }) });
    const boom = new Error('the store is down');
    const { turn } = scripted([boom, boom, boom, boom, boom, 'again', boom]);
    await worker({ turn, sleep, logger, maxBackoffMs: 1_000 }).drain();
    expect(waits).toEqual([100, 200, 400, 800, 1_000, 100]);
    expect(lines.map((line) => [line.msg, line.failures])).toEqual([
      ...[1, 2, 3, 4, 5].map((n) => ['test worker: could not read or record; retrying', n]),
      ['test worker: could not read or record; retrying', 1],
    ]);
  });

  it('property: the wait after a failure is idlePollMs doubled once per failure before it in a row, capped at maxBackoffMs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<'ok' | 'fail'>('ok', 'fail'), { maxLength: 30 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        async (outcomes, idlePollMs, maxBackoffMs) => {
          const { sleep, waits } = recordingSleep();
          const { turn } = scripted(outcomes.map((o) => (o === 'ok' ? 'again' : new Error('down'))));
          await worker({ turn, sleep, idlePollMs, maxBackoffMs }).drain();
          const expected: number[] = [];
          let inARow = 0;
          for (const outcome of outcomes) {
            inARow = outcome === 'fail' ? inARow + 1 : 0;
            if (outcome === 'fail') expected.push(Math.min(idlePollMs * 2 ** (inARow - 1), maxBackoffMs));
          }
          expect(waits).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('given a turn in hand, when stop() is called, then stop waits for that turn to finish and no new turn starts', async () => {
    const release = deferred();
    let started = 0;
    let finished = 0;
    let abortedInHand = false;
    const w = worker({
      turn: async (signal) => {
        started++;
        await release.promise;
        finished++;
        abortedInHand = signal.aborted;
        return 'again';
      },
    });
    w.start();
    await until(() => started === 1);
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release.resolve();
    await stopping;
    expect([started, finished, abortedInHand, w.isRunning]).toEqual([1, 1, true, false]);
  });

  it('given handed-off work, when it stops, then stop resolves only after settle has waited for it', async () => {
    const handedOff = deferred();
    const order: string[] = [];
    const w = worker({
      turn: async () => ({ until: handedOff.promise }),
      settle: async () => {
        order.push('settle started');
        await handedOff.promise;
        order.push('settled');
      },
    });
    w.start();
    await new Promise((resolve) => setImmediate(resolve));
    const stopping = w.stop().then(() => order.push('stopped'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['settle started']);
    handedOff.resolve();
    await stopping;
    expect(order).toEqual(['settle started', 'settled', 'stopped']);
  });

  it('given a turn that waits until something settles, when that settles, then the next turn starts without an idle wait', async () => {
    const { sleep, waits } = recordingSleep();
    const callEnded = deferred();
    const { turn, turns } = scripted([{ until: callEnded.promise }, 'again']);
    const draining = worker({ turn, sleep }).drain();
    await until(() => turns() === 1);
    callEnded.resolve();
    await draining;
    expect([turns(), waits]).toEqual([3, []]);
  });

  it('stop() before start() resolves at once, and a later start() still runs', async () => {
    const { turn, turns } = scripted(['again']);
    const w = worker({ turn, sleep: recordingSleep().sleep });
    await w.stop();
    expect(turns()).toBe(0);
    await w.drain();
    expect(turns()).toBe(2);
  });

  it('start() on a running worker runs no second loop; drain() on a running worker is refused', async () => {
    let inTurn = 0;
    let most = 0;
    let turns = 0;
    const w = worker({
      sleep: recordingSleep().sleep,
      turn: async () => {
        turns++;
        most = Math.max(most, ++inTurn);
        await new Promise((resolve) => setImmediate(resolve));
        inTurn--;
        return 'idle';
      },
    });
    w.start();
    w.start();
    await expect(w.drain()).rejects.toThrow('the test worker is already running');
    await until(() => turns >= 5);
    await w.stop();
    expect(most).toBe(1);
  });

  it('signal: aborted by stop() until the next start, so a one-off pass run with it ends early', async () => {
    const w = worker({ turn: async () => 'done', sleep: recordingSleep().sleep });
    expect(w.signal.aborted).toBe(false);
    await w.stop();
    expect(w.signal.aborted).toBe(true);
    await w.drain();
    expect(w.signal.aborted).toBe(false);
  });
});

describe('runEachDueOnce', () => {
  const queueOf = (items: string[]) => {
    const runs: string[] = [];
    const reads: number[] = [];
    return {
      runs,
      reads,
      read: async (limit: number) => {
        reads.push(limit);
        return items.slice(0, limit);
      },
      keyOf: (item: string) => (item.startsWith('-') ? null : item),
      run: async (item: string) => {
        runs.push(item);
        return item !== 'lost';
      },
      batchSize: 2,
    };
  };

  it('given items that stay due, when a pass runs, then each runs once, the queue is read again past those seen, and only runs that were ours count', async () => {
    const queue = queueOf(['a', 'lost', '-no-key', 'b', 'c']);
    expect(await runEachDueOnce(queue, new AbortController().signal)).toBe(3);
    expect(queue.runs).toEqual(['a', 'lost', 'b', 'c']);
    expect(queue.reads).toEqual([2, 4, 5, 6]);
  });

  it('given an aborted signal, when a pass runs, then it takes nothing', async () => {
    const queue = queueOf(['a']);
    const stopping = new AbortController();
    stopping.abort();
    expect(await runEachDueOnce(queue, stopping.signal)).toBe(0);
    expect(queue.runs).toEqual([]);
  });
});
