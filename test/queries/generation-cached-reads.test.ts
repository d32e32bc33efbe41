import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FreshGeneration, generationCachedReads, requestSharedGeneration, untilNextRequest } from '../../src/queries/generation-cached-reads.js';
import type { ReadModels } from '../../src/queries/read-models.js';
import { beginRequest, requestScope, wantsRequestScope } from '../../src/queries/request-scope.js';

/** A read whose answer the test releases, remembering when (in call order) each read began. */
function controlledReads() {
  const pending: { began: number; resolve: (n: number) => void; reject: (e: Error) => void }[] = [];
  let clock = 0;
  return {
    pending,
    now: () => clock++,
    read: () =>
      new Promise<number>((resolve, reject) => {
        pending.push({ began: clock++, resolve, reject });
      }),
  };
}

/** Two turns of the event loop: a read asked for in one begins at its end (setImmediate). */
const flush = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

describe('FreshGeneration', () => {
  it('answers every call with a read that began after the call, one read at a time, shared by the calls that waited', async () => {
    const reads = controlledReads();
    const generation = new FreshGeneration(reads.read);
    const first = generation.get();
    await flush();
    const calledAt = reads.now();
    const second = generation.get();
    const third = generation.get();
    expect(reads.pending).toHaveLength(1);
    reads.pending[0]!.resolve(1);
    await flush();
    expect(reads.pending).toHaveLength(2);
    expect(reads.pending[1]!.began).toBeGreaterThan(calledAt);
    reads.pending[1]!.resolve(2);
    expect(await first).toBe(1);
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    expect(reads.pending).toHaveLength(2);
  });

  it('a failed read fails the calls it answers; the calls waiting for the next one get their own', async () => {
    const reads = controlledReads();
    const generation = new FreshGeneration(reads.read);
    const first = generation.get();
    await flush();
    const second = generation.get();
    reads.pending[0]!.reject(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await flush();
    reads.pending[1]!.resolve(7);
    expect(await second).toBe(7);
    const later = generation.get();
    await flush();
    expect(reads.pending).toHaveLength(3);
    reads.pending[2]!.resolve(7);
    expect(await later).toBe(7);
  });

  it('the calls of one turn of the event loop share one read, which begins after the last of them', async () => {
    const reads = controlledReads();
    const generation = new FreshGeneration(reads.read);
    const calls = [generation.get(), generation.get()];
    const lastCallAt = reads.now();
    calls.push(generation.get());
    expect(reads.pending).toHaveLength(0);
    await flush();
    expect(reads.pending).toHaveLength(1);
    expect(reads.pending[0]!.began).toBeGreaterThan(lastCallAt);
    reads.pending[0]!.resolve(5);
    expect(await Promise.all(calls)).toEqual([5, 5, 5]);
  });

  it('property: whatever the interleaving, each answer comes from a read that began after its call', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('call', 'answer'), { maxLength: 40 }), async (steps) => {
        const reads = controlledReads();
        const generation = new FreshGeneration(reads.read);
        const calls: { at: number; answer: Promise<number> }[] = [];
        let answered = 0;
        for (const step of steps) {
          if (step === 'call') calls.push({ at: reads.now(), answer: generation.get() });
          else if (answered < reads.pending.length) reads.pending[answered]!.resolve(reads.pending[answered++]!.began);
          await flush();
        }
        // Answer what is still pending (answering one may start the next).
        while (answered < reads.pending.length) {
          reads.pending[answered]!.resolve(reads.pending[answered++]!.began);
          await flush();
        }
        for (const call of calls) expect(await call.answer).toBeGreaterThan(call.at);
        // One read in flight at a time: never more reads than calls.
        expect(reads.pending.length).toBeLessThanOrEqual(calls.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe('untilNextRequest (SQLite: a check is a statement)', () => {
  function counted() {
    const state = { value: 0, checks: 0, own: 0 };
    const generation = untilNextRequest(
      () => {
        state.checks++;
        return state.value + state.own;
      },
      () => state.own,
    );
    return { state, generation };
  }

  it('one check serves the calls after it until the next request begins', () => {
    const { state, generation } = counted();
    expect(generation()).toBe(0);
    state.value = 1;
    expect(generation()).toBe(0);
    expect(state.checks).toBe(1);
    beginRequest();
    expect(generation()).toBe(1);
    expect(state.checks).toBe(2);
  });

  it('or until the event loop turns, for a caller outside any request', async () => {
    const { state, generation } = counted();
    expect(generation()).toBe(0);
    state.value = 1;
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(generation()).toBe(1);
  });

  it("or until the connection's own changes move, at once", () => {
    const { state, generation } = counted();
    expect(generation()).toBe(0);
    state.own = 1;
    expect(generation()).toBe(1);
    expect(state.checks).toBe(2);
  });
});

describe('generationCachedReads', () => {
  /** Read models over a mutable "table" of suppliers, counting the reads that reach it. */
  function fakeStore() {
    const state = { generation: 0, status: 'MIGRATION_ONGOING', loads: 0, generationReads: 0 };
    const read = {
      findImportSupplier: async (code: string) => {
        state.loads++;
        return { code, status: state.status } as never;
      },
    } as unknown as ReadModels;
    const cached = generationCachedReads(
      read,
      requestSharedGeneration(async () => {
        state.generationReads++;
        return state.generation;
      }),
    );
    return { state, cached };
  }

  it('answers from memory while the generation stands, and reads again once it moved', async () => {
    const { state, cached } = fakeStore();
    expect(await cached.findImportSupplier('A')).toMatchObject({ status: 'MIGRATION_ONGOING' });
    expect(await cached.findImportSupplier('A')).toMatchObject({ status: 'MIGRATION_ONGOING' });
    expect(state.loads).toBe(1);
    expect(state.generationReads).toBe(2);
    state.status = 'MIGRATION_COMPLETE';
    state.generation++;
    expect(await cached.findImportSupplier('A')).toMatchObject({ status: 'MIGRATION_COMPLETE' });
    expect(state.loads).toBe(2);
  });

  it('within one request, one check of the generation serves all its reads; each request checks again', async () => {
    const { state, cached } = fakeStore();
    const request = () =>
      requestScope.run({}, async () => {
        await cached.findImportSupplier('A');
        await cached.findImportSupplier('B');
        return cached.findImportSupplier('A');
      });
    await request();
    expect(state.generationReads).toBe(1);
    state.status = 'MIGRATION_COMPLETE';
    state.generation++;
    // A change committed before the next request arrived: its check sees it.
    expect(await request()).toMatchObject({ status: 'MIGRATION_COMPLETE' });
    expect(state.generationReads).toBe(2);
  });

  it('a row loaded while the generation moved is answered but not kept', async () => {
    const state = { generation: 0, loads: 0 };
    let releaseLoad: (() => void) | null = null;
    const read = {
      configValue: async () => {
        const value = state.generation;
        state.loads++;
        if (state.loads === 1) await new Promise<void>((resolve) => (releaseLoad = resolve));
        return value;
      },
    } as unknown as ReadModels;
    const cached = generationCachedReads(read, async () => state.generation);
    const slow = cached.configValue('request-rate-per-second');
    await flush();
    state.generation = 1;
    expect(await cached.configValue('request-rate-per-second')).toBe(1);
    releaseLoad!();
    expect(await slow).toBe(0);
    expect(await cached.configValue('request-rate-per-second')).toBe(1);
    expect(state.loads).toBe(2);
  });

  it("asks the service for a request scope behind PostgreSQL's shared generation; behind SQLite's, or without the cache, it does not", () => {
    const { cached } = fakeStore();
    expect(wantsRequestScope(cached)).toBe(true);
    expect(wantsRequestScope({} as ReadModels)).toBe(false);
    expect(wantsRequestScope(generationCachedReads({} as ReadModels, () => 0))).toBe(false);
  });

  it('takes a generation told at once (SQLite checks it with a statement of its own)', async () => {
    const state = { generation: 0, loads: 0 };
    const read = {
      findImportSupplier: async (code: string) => {
        state.loads++;
        return { code, loads: state.loads } as never;
      },
    } as unknown as ReadModels;
    const cached = generationCachedReads(read, () => state.generation);
    expect(await cached.findImportSupplier('A')).toMatchObject({ loads: 1 });
    expect(await cached.findImportSupplier('A')).toMatchObject({ loads: 1 });
    state.generation++;
    expect(await cached.findImportSupplier('A')).toMatchObject({ loads: 2 });
  });

  it('passes every other read through untouched', () => {
    const listImportSuppliers = async () => [];
    const cached = generationCachedReads({ listImportSuppliers } as unknown as ReadModels, async () => 0);
    expect(cached.listImportSuppliers).toBe(listImportSuppliers);
  });
});
