import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../../src/store/sqlite/database.js';
import { GroupCommitRunner } from '../../../src/store/sqlite/group-commit.js';
import { tempDatabaseFile } from '../../support/ledger.js';

/**
 * A batch commits with synchronous=NORMAL and the runner syncs the
 * WAL itself, off the event loop. Nothing settles before the sync that covers
 * its batch returned; the next batch is decided meanwhile; a failed sync fails
 * its batch and every later unit.
 */

let database: OpenDatabase;
let cleanup: () => void;
afterEach(() => {
  database?.close();
  cleanup?.();
});

/** A runner whose WAL syncs wait until the test releases them. */
function heldRunner(unsynced?: Int32Array, more: { gatherDuringSync?: boolean; onBatch?: (units: number) => void; busyTimeoutMs?: number } = {}) {
  const { busyTimeoutMs, ...options } = more;
  const temp = tempDatabaseFile();
  cleanup = temp.cleanup;
  database = openDatabase(temp.file);
  database.sqlite.exec('CREATE TABLE t (n INTEGER)');
  if (busyTimeoutMs !== undefined) database.sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  const held: ((error: Error | null) => void)[] = [];
  const runner = new GroupCommitRunner(database.sqlite, {
    walFile: `${database.file}-wal`,
    syncWal: (_fd, done) => held.push(done),
    ...(unsynced ? { unsynced } : {}),
    ...options,
  });
  return { runner, held, sqlite: database.sqlite };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const settled = (promise: Promise<unknown>) => {
  const state = { done: false };
  void promise.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
};

describe('GroupCommitRunner: the WAL synced off the event loop', () => {
  it('gathering during a sync (the writer thread): units that arrive while it runs commit together once it ends', async () => {
    const batches: number[] = [];
    const { runner, held, sqlite } = heldRunner(undefined, { gatherDuringSync: true, onBatch: (units) => batches.push(units) });
    const first = runner.run(() => sqlite.prepare('INSERT INTO t VALUES (1)').run());
    await tick();
    await tick();
    expect(held).toHaveLength(1);
    const later = [2, 3, 4].map((n) => runner.run(() => sqlite.prepare('INSERT INTO t VALUES (?)').run(n)));
    for (let i = 0; i < 4; i++) await tick();
    // Not committed while the first sync runs: one batch waits for it.
    expect(sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
    held[0]!(null);
    await first;
    expect(sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(4);
    expect(held).toHaveLength(2);
    held[1]!(null);
    await Promise.all(later);
    expect(batches).toEqual([1, 3]);
  });

  it('counts the batches committed and not yet synced (the writer thread\'s readers\' durable()); a failed sync keeps the count up', async () => {
    const unsynced = new Int32Array(new SharedArrayBuffer(4));
    const { runner, held, sqlite } = heldRunner(unsynced);
    const first = runner.run(() => sqlite.prepare('INSERT INTO t VALUES (1)').run());
    await tick();
    await tick();
    // Committed, visible to a reader, not on disk: a reader must wait.
    expect(Atomics.load(unsynced, 0)).toBe(1);
    const second = runner.run(() => sqlite.prepare('INSERT INTO t VALUES (2)').run());
    await tick();
    await tick();
    expect(Atomics.load(unsynced, 0)).toBe(2);
    held[0]!(null);
    await first;
    expect(Atomics.load(unsynced, 0)).toBe(1);
    held[1]!(new Error('EIO'));
    await expect(second).rejects.toThrow(/could not be synced/);
    expect(Atomics.load(unsynced, 0)).toBe(1);
    // Every later unit is refused, committing nothing: the count stays as it is.
    const refused = runner.run(() => 1);
    await expect(refused).rejects.toThrow(/could not be synced/);
    expect(Atomics.load(unsynced, 0)).toBe(1);
  });

  it('answers a batch only after its sync; the next batch commits meanwhile, seeing the first', async () => {
    const { runner, held, sqlite } = heldRunner();
    const first = runner.run(() => sqlite.prepare('INSERT INTO t VALUES (1)').run());
    const firstState = settled(first);
    await tick();
    await tick();
    expect(held).toHaveLength(1);
    expect(firstState.done).toBe(false);
    // Committed (visible on the connection), not yet answered; the connection is back at FULL.
    expect(sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
    expect(sqlite.pragma('synchronous', { simple: true })).toBe(2);
    const durable = settled(runner.durable());

    const second = runner.run(() => sqlite.prepare('SELECT count(*) FROM t').pluck().get());
    const secondState = settled(second);
    await tick();
    await tick();
    // One sync at a time: the second batch waits for the next one.
    expect(held).toHaveLength(1);
    held[0]!(null);
    await first;
    expect(durable.done).toBe(true);
    expect(secondState.done).toBe(false);
    expect(held).toHaveLength(2);
    held[1]!(null);
    expect(await second).toBe(1);
    await expect(runner.durable()).resolves.toBeUndefined();
  });

  it('runCommitted settles at COMMIT, before the sync (another connection sees its write); a unit of its batch still waits for the sync; durable() waits for it', async () => {
    const { runner, held, sqlite } = heldRunner();
    const other = openDatabase(database.file);
    try {
      const claim = runner.runCommitted(() => sqlite.prepare('INSERT INTO t VALUES (1)').run().changes);
      const write = runner.run(() => sqlite.prepare('INSERT INTO t VALUES (2)').run().changes);
      const writeState = settled(write);
      expect(await claim).toBe(1);
      expect(held).toHaveLength(1);
      expect(writeState.done).toBe(false);
      expect(other.sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2);
      const durable = settled(runner.durable());
      await tick();
      expect(durable.done).toBe(false);
      held[0]!(null);
      expect(await write).toBe(1);
      await tick();
      expect(durable.done).toBe(true);
      // A unit that throws rejects at COMMIT too, alone.
      await expect(runner.runCommitted(() => { throw new Error('refused'); })).rejects.toThrow('refused');
    } finally {
      other.close();
    }
  });

  it('a failed sync fails its batch and refuses every later unit', async () => {
    const { runner, held, sqlite } = heldRunner();
    const first = runner.run(() => sqlite.prepare('INSERT INTO t VALUES (1)').run());
    await tick();
    await tick();
    held[0]!(new Error('EIO'));
    await expect(first).rejects.toThrow(/could not be synced.*EIO/);
    await expect(runner.run(() => 1)).rejects.toThrow(/could not be synced/);
    await expect(runner.durable()).rejects.toThrow(/could not be synced/);
  });

  it('syncs the real WAL file with fdatasync by default', async () => {
    const temp = tempDatabaseFile();
    cleanup = temp.cleanup;
    database = openDatabase(temp.file);
    const runner = new GroupCommitRunner(database.sqlite, { walFile: `${database.file}-wal` });
    database.sqlite.exec('CREATE TABLE t (n INTEGER)');
    await runner.run(() => database.sqlite.prepare('INSERT INTO t VALUES (1)').run());
    await runner.durable();
    await runner.close();
    expect(database.sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
  });
});

describe("GroupCommitRunner: another connection holding the writers' lock", () => {
  /** Another connection to the runner's file, in a write transaction: the WAL checkpointer's TRUNCATE, or the command line. */
  const holdWritersLock = () => {
    const other = new Database(database.file);
    other.exec('BEGIN IMMEDIATE');
    return { release: () => (other.exec('ROLLBACK'), other.close()) };
  };
  const timers = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('waits for the lock on timers, not in SQLite\'s busy handler, so the event loop goes on; the batch commits once the lock is free', async () => {
    const { runner, held, sqlite } = heldRunner();
    const lock = holdWritersLock();
    const write = runner.run(() => sqlite.prepare('INSERT INTO t VALUES (1)').run());
    const state = settled(write);
    // SQLite's busy handler would sleep on this thread until the busy timeout (5 s) and fail the batch.
    const before = performance.now();
    await timers(30);
    expect(performance.now() - before).toBeLessThan(1_000);
    expect(state.done).toBe(false);
    expect(sqlite.inTransaction).toBe(false);
    lock.release();
    while (held.length === 0) await timers(2);
    held[0]!(null);
    await write;
    expect(sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
    expect(sqlite.pragma('busy_timeout', { simple: true })).toBe(5_000);
  });

  it("fails the batch with SQLITE_BUSY once the connection's busy timeout has passed, and keeps that timeout", async () => {
    const { runner, sqlite } = heldRunner(undefined, { busyTimeoutMs: 60 });
    const lock = holdWritersLock();
    try {
      const began = performance.now();
      await expect(runner.run(() => sqlite.prepare('INSERT INTO t VALUES (1)').run())).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
      expect(performance.now() - began).toBeGreaterThanOrEqual(60);
      expect(sqlite.pragma('busy_timeout', { simple: true })).toBe(60);
      expect(sqlite.inTransaction).toBe(false);
    } finally {
      lock.release();
    }
    expect(sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
  });
});

describe('GroupCommitRunner: a batch gathers units for two turns of the event loop', () => {
  /** A runner on a temp database that reports each batch's units (no WAL file: COMMIT syncs inline). */
  function counted(options: { gatherTurns?: number; maxBatch?: number } = {}) {
    const temp = tempDatabaseFile();
    cleanup = temp.cleanup;
    database = openDatabase(temp.file);
    database.sqlite.exec('CREATE TABLE t (n INTEGER)');
    const units: number[] = [];
    const runner = new GroupCommitRunner(database.sqlite, { ...options, onBatch: (n) => units.push(n) });
    const insert = (n: number) => () => database.sqlite.prepare('INSERT INTO t VALUES (?)').run(n).changes;
    return { runner, units, insert };
  }
  /** Runs `work` in a later callback of the turn the runner's batch was scheduled in (after the runner's own). */
  const laterThisTurn = <T>(work: () => Promise<T>) => new Promise<Promise<T>>((resolve) => setImmediate(() => resolve(work())));
  const inTheNextTurn = <T>(work: () => Promise<T>) => new Promise<Promise<T>>((resolve) => setImmediate(() => setImmediate(() => resolve(work()))));

  it('takes in a unit that arrived after the turn that scheduled the batch had run its callbacks', async () => {
    const { runner, units, insert } = counted();
    const first = runner.run(insert(1));
    const second = await laterThisTurn(() => runner.run(insert(2)));
    await Promise.all([first, second]);
    expect(units).toEqual([2]);
  });

  it('with gatherTurns 1, commits what the first turn brought: the later unit makes a batch of its own', async () => {
    const { runner, units, insert } = counted({ gatherTurns: 1 });
    const first = runner.run(insert(1));
    const second = await laterThisTurn(() => runner.run(insert(2)));
    await Promise.all([first, second]);
    expect(units).toEqual([1, 1]);
  });

  it('waits no longer than its turns: a unit of the turn after them goes into the next batch', async () => {
    const { runner, units, insert } = counted();
    const first = runner.run(insert(1));
    const second = await inTheNextTurn(() => runner.run(insert(2)));
    await Promise.all([first, second]);
    expect(units).toEqual([1, 1]);
  });

  it('commits a full batch at once, without gathering for another turn', async () => {
    const { runner, units, insert } = counted({ maxBatch: 2 });
    const all = [runner.run(insert(1)), runner.run(insert(2)), runner.run(insert(3))];
    await tick(); // queued after the runner's first callback: the full batch has committed by then
    expect(units).toEqual([2]);
    await Promise.all(all);
    expect(units).toEqual([2, 1]);
    expect(database.sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(3);
  });
});
