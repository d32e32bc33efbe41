import { closeSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';

interface Pending {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  /** Settles once its batch is committed (visible to every connection), without waiting for the WAL sync. */
  readonly atCommit: boolean;
}

export interface GroupCommitOptions {
  /** Most units of work committed together; the rest wait for the next batch. */
  readonly maxBatch?: number;
  /**
   * The connection's WAL file (`<database>-wal`): when given, a batch commits
   * with `synchronous=NORMAL` (no fsync on the event loop) and the runner
   * syncs the WAL itself on libuv's thread pool before any unit of the batch
   * settles. Without it (an in-memory database, tests of the runner), every
   * COMMIT syncs inline as the connection's `synchronous=FULL` says.
   */
  readonly walFile?: string;
  /** How the WAL is synced (tests hold it to see what waits for it): `fdatasync` on the thread pool. */
  readonly syncWal?: (fd: number, done: (error: Error | null) => void) => void;
  /**
   * Turns of the event loop a batch gathers units for before it commits (default 2; 1 commits what the
   * turn that scheduled it brought): see `schedule`.
   */
  readonly gatherTurns?: number;
  /** Told of every batch once it is durable: its units, and the ms from BEGIN until then (the store's observer). */
  readonly onBatch?: (units: number, commitMs: number) => void;
  /**
   * A counter (index 0) of the batches committed and not yet durable, raised before each COMMIT and lowered
   * once its batch is synced (or its COMMIT failed; a failed sync leaves it raised for good): shared with the threads that read the file, so that a reader that
   * finds it at zero knows everything it can see is on disk (writer-thread.ts).
   */
  readonly unsynced?: Int32Array;
  /**
   * Units that arrive while a sync runs wait for it to end and commit as one batch then, rather than in
   * batches of their own: none of them can be answered before the next sync anyway, and every commit
   * writes again the pages its units share. For a runner whose thread does nothing else (the writer
   * thread, where units arrive one message at a time and two idle turns gather almost nothing).
   */
  readonly gatherDuringSync?: boolean;
}

/** Settles the units of a committed batch once the WAL holding them is on disk (or the sync failed). */
type AfterSync = (error: Error | null) => void;

/**
 * Group commit for SQLite. Units of work (synchronous functions that read and
 * write through the same connection) that arrive in the same turn of the
 * event loop (two turns by default: see `schedule`) are run one after another inside ONE `BEGIN IMMEDIATE`
 * transaction, each in its own SAVEPOINT, and committed together:
 *
 * - each unit sees everything the units before it in the batch wrote, so a
 *   command is decided against the state that includes them;
 * - a unit that throws is rolled back to its savepoint alone and its caller
 *   gets the error; the others are unaffected;
 * - no caller's promise settles before the batch is durable (except a
 *   `runCommitted` unit's: see there). If the COMMIT
 *   itself fails, every unit of the batch gets that error.
 *
 * Durability without the fsync on the event loop: with a WAL file,
 * the batch's COMMIT runs with `synchronous=NORMAL`, which writes the WAL
 * frames (into the OS page cache: a killed process loses nothing from there)
 * but does not fsync them; the runner then `fdatasync`s the WAL on the thread
 * pool and settles the batch's promises only when that returns. Meanwhile the
 * event loop reads bodies and decides the next batch, which is decided against
 * the state including this one (same connection) and settles only after a
 * later sync, which covers every frame written before it. One sync runs at a
 * time; the batches committed during it share the next one. Everything else
 * on the connection (migrations, rebuilds, the token secret) keeps
 * `synchronous=FULL`. A failed sync leaves the page cache's state unknown (the
 * kernel may have dropped the dirty pages): the runner then refuses every
 * later unit, so the process must restart and SQLite recovers from the file.
 */
export class GroupCommitRunner {
  private queue: Pending[] = [];
  private scheduled = false;
  /** Turns the scheduled batch still gathers for, this one included. */
  private turnsLeft = 0;
  private readonly maxBatch: number;
  private readonly gatherTurns: number;
  private readonly committedListeners = new Set<() => void>();
  private readonly walFile: string | undefined;
  private readonly syncWal: NonNullable<GroupCommitOptions['syncWal']>;
  private walFd: number | null = null;
  /** Batches committed since the sync in flight started: they wait for the next one. */
  private waitingForSync: AfterSync[] = [];
  /** The batches the sync in flight covers (null: none in flight). */
  private syncing: AfterSync[] | null = null;
  private syncFailure: Error | null = null;
  private readonly onBatch: GroupCommitOptions['onBatch'];
  private readonly unsynced: Int32Array | undefined;
  private readonly gatherDuringSync: boolean;

  constructor(
    private readonly sqlite: Database.Database,
    options: GroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 512;
    this.gatherTurns = Math.max(1, options.gatherTurns ?? 2);
    this.walFile = options.walFile;
    this.syncWal = options.syncWal ?? fdatasync;
    this.onBatch = options.onBatch;
    this.unsynced = options.unsynced;
    this.gatherDuringSync = options.gatherDuringSync ?? false;
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
   * Like `run`, but settles as soon as the unit's batch is committed: what it wrote is then visible to
   * every connection on the file, though a power cut could still take it back until the WAL sync that
   * follows. Only for a write whose loss is harmless and whose effects are made durable by a later
   * write's sync anyway (the WAL is synced in order: any later batch's sync covers this one's frames),
   * such as an Idempotency-Key reservation: a lost reservation is a key nobody holds, and the
   * request's own events, which a retry must find, are written after it.
   */
  runCommitted<T>(work: () => T): Promise<T> {
    return this.enqueue(work, true);
  }

  private enqueue<T>(work: () => T, atCommit: boolean): Promise<T> {
    if (this.syncFailure) return Promise.reject(this.syncFailure);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject, atCommit });
      this.schedule();
    });
  }

  /**
   * Resolves once everything committed so far is on disk: a reader that
   * answers from what it read waits for it, so no answer shows a write that a
   * power cut could still take back.
   */
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
   * A batch commits `gatherTurns` turns of the event loop after its first unit arrived, or at once when it
   * is full. setImmediate runs after the I/O callbacks of a turn, so every request that was ready in it
   * joins; the second turn takes in the requests whose bytes arrived while the first was being decided.
   * That is how a client's requests come: the answers of one commit reach it together, and it sends the
   * follow-up requests one after another as it gets through them, so they reach the service spread over
   * a little more than one turn. Committed as they came, the first of them made a batch of its own and the
   * rest the next; every commit writes again the pages all the units share (the indexes' last leaves, the
   * header), so the service wrote and checkpointed more, used more CPU per request, and answered fewer
   * requests a second. A client of 8 workers, each staging then processing one account: 3.0-3.4 units a
   * commit, 5.4-6.0 with the second turn (bench "migrate 2,000 accounts": 27% fewer bytes written an
   * account, about 10% more accounts a second). An idle turn costs microseconds, so a lone request waits
   * no longer to speak of.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.turnsLeft = this.gatherTurns;
    setImmediate(this.onTurn);
  }

  private readonly onTurn = (): void => {
    if (--this.turnsLeft > 0 && this.queue.length < this.maxBatch) {
      setImmediate(this.onTurn);
      return;
    }
    if (this.gatherDuringSync && this.syncing && this.queue.length < this.maxBatch) {
      this.scheduled = false; // finishSync commits what gathered
      return;
    }
    this.flush();
  };

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0) this.schedule();
    if (batch.length === 0) return;
    if (this.syncFailure) {
      for (const unit of batch) unit.reject(this.syncFailure);
      return;
    }

    const outcomes: { ok: boolean; value: unknown }[] = [];
    const began = performance.now();
    let counted = false;
    const asyncSync = this.walFile !== undefined;
    try {
      // Outside a transaction, as SQLite requires; only this batch's COMMIT skips the inline fsync.
      if (asyncSync) this.sqlite.pragma('synchronous = NORMAL');
      this.sqlite.exec('BEGIN IMMEDIATE');
    } catch (error) {
      this.restoreFullSync(asyncSync);
      for (const unit of batch) unit.reject(error);
      return;
    }
    try {
      for (const unit of batch) {
        this.sqlite.exec('SAVEPOINT unit');
        try {
          const value = unit.work();
          this.sqlite.exec('RELEASE unit');
          outcomes.push({ ok: true, value });
        } catch (error) {
          // SQLite rolls the whole transaction back itself on some errors (SQLITE_FULL, SQLITE_IOERR): the units
          // before this one are gone too, so the batch fails with this error, the one that says why.
          if (!this.sqlite.inTransaction) throw error;
          this.sqlite.exec('ROLLBACK TO unit');
          this.sqlite.exec('RELEASE unit');
          outcomes.push({ ok: false, value: error });
        }
      }
      if (this.unsynced) counted = Atomics.add(this.unsynced, 0, 1) >= 0;
      this.sqlite.exec('COMMIT');
    } catch (error) {
      if (counted) Atomics.sub(this.unsynced!, 0, 1);
      // Whatever the file refuses (full, read-only, unreadable) fails the batch, never the process: this runs
      // on a timer, where a throw would end it.
      try {
        if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
      } catch {
        // A transaction SQLite could not roll back is rolled back when the file is next opened (its journal).
      }
      this.restoreFullSync(asyncSync);
      for (const unit of batch) unit.reject(error);
      return;
    }
    this.restoreFullSync(asyncSync);
    const settleUnit = (unit: Pending, i: number) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.value);
    };
    // The units that wait for the commit only settle now; the others once the WAL is synced.
    if (asyncSync) batch.forEach((unit, i) => unit.atCommit && settleUnit(unit, i));
    const settle: AfterSync = (syncError) => {
      if (counted && !syncError) Atomics.sub(this.unsynced!, 0, 1);
      if (!syncError) this.onBatch?.(batch.length, performance.now() - began);
      batch.forEach((unit, i) => {
        if (asyncSync && unit.atCommit) return;
        if (syncError) unit.reject(syncError);
        else settleUnit(unit, i);
      });
    };
    if (!asyncSync) {
      settle(null);
      this.notifyCommitted();
      return;
    }
    this.waitingForSync.push(settle);
    if (!this.syncing) this.startSync();
  }

  private restoreFullSync(asyncSync: boolean): void {
    if (asyncSync) this.sqlite.pragma('synchronous = FULL');
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
      this.syncFailure = new Error(`the SQLite write-ahead log could not be synced to disk; restart the service (${error.message})`, {
        cause: error,
      });
      for (const settle of [...group, ...this.waitingForSync]) settle(this.syncFailure);
      this.waitingForSync = [];
      return;
    }
    for (const settle of group) settle(null);
    this.notifyCommitted();
    if (this.gatherDuringSync && this.queue.length > 0 && !this.scheduled) this.flush();
    if (this.waitingForSync.length > 0 && !this.syncing) this.startSync();
  }

  /**
   * The WAL, opened once (it exists after the first commit and is never
   * deleted while this connection is open; a checkpoint truncates it in place).
   * Its directory is synced once, so the file itself survives a power cut.
   */
  private openWal(): number {
    if (this.walFd !== null) return this.walFd;
    const fd = openSync(this.walFile!, 'r');
    const directory = openSync(dirname(this.walFile!), 'r');
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
