import { closeSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { GroupCommitQueue, settle, type Outcome, type Pending } from '../group-commit-queue.js';

interface Unit {
  readonly work: () => unknown;
  /** Settles once its batch is committed (visible to every connection), without waiting for the WAL sync. */
  readonly atCommit: boolean;
}

export interface GroupCommitOptions {
  /** Most units of work committed together; the rest wait for the next batch. */
  readonly maxBatch?: number;
  /**
   * The connection's WAL file: when given, a batch commits with `synchronous=NORMAL` and the runner syncs
   * the WAL on libuv's thread pool before any unit of the batch settles. Without it (an in-memory
   * database), every COMMIT syncs inline as the connection's `synchronous=FULL` says.
   */
  readonly walFile?: string;
  /** How the WAL is synced (tests hold it): `fdatasync` on the thread pool. */
  readonly syncWal?: (fd: number, done: (error: Error | null) => void) => void;
  /** Turns of the event loop a batch gathers units for (default 2): see GroupCommitQueue. */
  readonly gatherTurns?: number;
  /** Told of every batch once it is durable: its units, and the ms from BEGIN until then. */
  readonly onBatch?: (units: number, commitMs: number) => void;
  /**
   * A counter (index 0) of the batches committed and not yet durable, shared with the threads that read
   * the file: a reader that finds it at zero knows everything it can see is on disk. A failed sync leaves
   * it raised for good.
   */
  readonly unsynced?: Int32Array;
  /**
   * Units that arrive while a sync runs commit as one batch once it ends: none of them can be answered
   * before the next sync anyway. For a runner whose thread does nothing else (the writer thread, where
   * units arrive one message at a time and idle turns gather almost nothing).
   */
  readonly gatherDuringSync?: boolean;
}

/** Settles the units of a committed batch once the WAL holding them is on disk (or the sync failed). */
type AfterSync = (error: Error | null) => void;

/**
 * Group commit for SQLite: the units of work of a batch (synchronous functions on the same connection)
 * run one after another in ONE `BEGIN IMMEDIATE` transaction, each in its own SAVEPOINT. Each unit sees
 * what the units before it wrote; a unit that throws is rolled back alone; no promise settles before its
 * batch is durable (a `runCommitted` unit's aside), and a failed COMMIT fails every unit of the batch.
 *
 * With a WAL file the COMMIT writes the frames without fsync (a killed process loses nothing from the page
 * cache) and the WAL is `fdatasync`ed on the thread pool while the event loop decides the next batch; one
 * sync runs at a time and covers every batch committed before it. After a failed sync the page cache's
 * state is unknown: the runner refuses every later unit, so the process restarts and SQLite recovers.
 */
export class GroupCommitRunner {
  private readonly queue: GroupCommitQueue<Unit>;
  private readonly committedListeners = new Set<() => void>();
  private readonly syncWal: NonNullable<GroupCommitOptions['syncWal']>;
  private walFd: number | null = null;
  /** Batches committed since the sync in flight started: they wait for the next one. */
  private waitingForSync: AfterSync[] = [];
  /** The batches the sync in flight covers (null: none in flight). */
  private syncing: AfterSync[] | null = null;
  private syncFailure: Error | null = null;
  /** The connection's busy timeout, which a batch's BEGIN goes without. */
  private readonly busyTimeoutMs: number;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly options: GroupCommitOptions = {},
  ) {
    this.syncWal = options.syncWal ?? fdatasync;
    this.busyTimeoutMs = Number(sqlite.pragma('busy_timeout', { simple: true }));
    this.queue = new GroupCommitQueue((batch) => this.commit(batch), {
      maxBatch: options.maxBatch ?? 512,
      gatherTurns: options.gatherTurns ?? 2,
      hold: () => options.gatherDuringSync === true && this.syncing !== null,
    });
  }

  /** Called after every durable batch (live readers' wake-up); returns the unsubscribe function. */
  onCommitted(listener: () => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  run<T>(work: () => T): Promise<T> {
    return this.enqueue(work, false);
  }

  /**
   * Like `run`, but settles once the unit's batch is committed, before its sync: only for a write whose
   * loss is harmless and made durable by a later write's sync anyway (the WAL is synced in order), such as
   * an Idempotency-Key reservation, written before the request's own events.
   */
  runCommitted<T>(work: () => T): Promise<T> {
    return this.enqueue(work, true);
  }

  private enqueue<T>(work: () => T, atCommit: boolean): Promise<T> {
    if (this.syncFailure) return Promise.reject(this.syncFailure);
    return this.queue.add({ work, atCommit });
  }

  /** Resolves once everything committed so far is on disk: a reader waits for it before it answers. */
  durable(): Promise<void> {
    if (this.syncFailure) return Promise.reject(this.syncFailure);
    const group = this.waitingForSync.length > 0 ? this.waitingForSync : this.syncing;
    if (!group) return Promise.resolve();
    return new Promise((resolve, reject) => group.push((error) => (error ? reject(error) : resolve())));
  }

  /** Waits for the sync in flight, then closes the WAL file (the connection is the caller's). */
  async close(): Promise<void> {
    await this.durable().catch(() => undefined);
    if (this.walFd !== null) closeSync(this.walFd);
    this.walFd = null;
  }

  /**
   * Runs the batch, once the writers' lock is free. Another connection can hold it for tens of milliseconds
   * (the WAL checkpointer's TRUNCATE, the command line's writes), and SQLite's own busy wait sleeps on the
   * thread, so reads would wait behind it too: the batch tries again on a timer instead, for as long as the
   * connection's busy timeout, and fails with SQLITE_BUSY after that.
   */
  private commit(batch: Pending<Unit>[], deadline = performance.now() + this.busyTimeoutMs): void | Promise<void> {
    if (this.syncFailure) {
      for (const entry of batch) entry.reject(this.syncFailure);
      return;
    }
    const { unsynced, walFile } = this.options;
    const asyncSync = walFile !== undefined;
    const outcomes: Outcome[] = [];
    const began = performance.now();
    let counted = false;
    try {
      // Outside a transaction, as SQLite requires; only this batch's COMMIT skips the inline fsync.
      if (asyncSync) this.sqlite.pragma('synchronous = NORMAL');
      this.beginWithoutWaiting();
    } catch (error) {
      if (asyncSync) this.sqlite.pragma('synchronous = FULL');
      if (isBusy(error) && performance.now() < deadline) {
        return new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS)).then(() => this.commit(batch, deadline));
      }
      for (const entry of batch) entry.reject(error);
      return;
    }
    try {
      for (const { unit } of batch) {
        this.sqlite.exec('SAVEPOINT unit');
        try {
          const value = unit.work();
          this.sqlite.exec('RELEASE unit');
          outcomes.push({ ok: true, value });
        } catch (error) {
          // SQLite rolls the whole transaction back itself on some errors (SQLITE_FULL, SQLITE_IOERR): the
          // units before this one are gone too, so the batch fails with this error.
          if (!this.sqlite.inTransaction) throw error;
          this.sqlite.exec('ROLLBACK TO unit');
          this.sqlite.exec('RELEASE unit');
          outcomes.push({ ok: false, value: error });
        }
      }
      if (unsynced) counted = Atomics.add(unsynced, 0, 1) >= 0;
      this.sqlite.exec('COMMIT');
    } catch (error) {
      if (counted) Atomics.sub(unsynced!, 0, 1);
      // Whatever the file refuses fails the batch, never the process (this runs on a timer).
      try {
        if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
      } catch {
        // A transaction SQLite could not roll back is rolled back when the file is next opened.
      }
      if (asyncSync) this.sqlite.pragma('synchronous = FULL');
      for (const entry of batch) entry.reject(error);
      return;
    }
    // The units that wait for the commit only settle now; the others once the WAL is synced.
    if (asyncSync) {
      this.sqlite.pragma('synchronous = FULL');
      batch.forEach((entry, i) => entry.unit.atCommit && settle(entry, outcomes[i]!));
    }
    const afterSync: AfterSync = (syncError) => {
      if (counted && !syncError) Atomics.sub(unsynced!, 0, 1);
      if (!syncError) this.options.onBatch?.(batch.length, performance.now() - began);
      batch.forEach((entry, i) => {
        if (asyncSync && entry.unit.atCommit) return;
        if (syncError) entry.reject(syncError);
        else settle(entry, outcomes[i]!);
      });
    };
    if (!asyncSync) {
      afterSync(null);
      this.notifyCommitted();
      return;
    }
    this.waitingForSync.push(afterSync);
    if (!this.syncing) this.startSync();
  }

  private beginWithoutWaiting(): void {
    // SQLite applies this pragma when it is prepared, so a prepared statement would not apply it again.
    this.sqlite.pragma('busy_timeout = 0');
    try {
      this.sqlite.exec('BEGIN IMMEDIATE');
    } finally {
      this.sqlite.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    }
  }

  /** One fdatasync of the WAL on the thread pool for every batch committed before it starts. */
  private startSync(): void {
    const group = this.waitingForSync;
    this.waitingForSync = [];
    this.syncing = group;
    let fd: number;
    try {
      fd = this.openWal();
    } catch (error) {
      this.finishSync(group, error as Error);
      return;
    }
    this.syncWal(fd, (error) => this.finishSync(group, error));
  }

  private finishSync(group: AfterSync[], error: Error | null): void {
    this.syncing = null;
    if (error) {
      this.syncFailure = new Error(`the SQLite write-ahead log could not be synced to disk; restart the service (${error.message})`, { cause: error });
      for (const afterSync of [...group, ...this.waitingForSync]) afterSync(this.syncFailure);
      this.waitingForSync = [];
      return;
    }
    for (const afterSync of group) afterSync(null);
    this.notifyCommitted();
    this.queue.resume();
    if (this.waitingForSync.length > 0 && !this.syncing) this.startSync();
  }

  /**
   * The WAL, opened once (a checkpoint truncates it in place, never deletes it while the connection is
   * open), its directory synced once so that the file itself survives a power cut.
   */
  private openWal(): number {
    if (this.walFd !== null) return this.walFd;
    const fd = openSync(this.options.walFile!, 'r');
    const directory = openSync(dirname(this.options.walFile!), 'r');
    try {
      fsyncSync(directory);
    } finally {
      closeSync(directory);
    }
    this.walFd = fd;
    return fd;
  }

  private notifyCommitted(): void {
    for (const listener of [...this.committedListeners]) listener();
  }
}

/** How often a batch tries `BEGIN IMMEDIATE` again while another connection holds the writers' lock. */
const LOCK_RETRY_MS = 2;

const isBusy = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'SQLITE_BUSY';
