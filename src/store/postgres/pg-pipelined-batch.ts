import type pg from 'pg';
import type { BeforeCommit, StoredLedgerEvent } from '../event-store.js';
import { settleAll, type Outcome } from '../group-commit-queue.js';
import type { Row } from '../projection-rows.js';
import { translateLockTimeout } from './pg-batch-transaction.js';
import { insertEvents } from './pg-event-rows.js';
import { BatchProjection, type PgProjectionTable } from './pg-projection-writer.js';
import { guessedRows, guessRows, type GuessedLoad, type SeenVersions } from './pg-row-guess.js';
import type { ReadAhead } from '../read-ahead.js';
import type { UnitByUnitContext } from './pg-unit-by-unit.js';
import { Deferred, LockedView, readStreams, streamsToRead, type Pending, type PgWriteTransaction, type StreamsRead, type WriteUnit } from './pg-write-unit.js';

/** What the pipelined path needs of the runner. */
export interface PipelineContext extends UnitByUnitContext {
  readonly seen: SeenVersions;
  readonly readAhead: ReadAhead;
  readonly maxBatch: number;
  /** Units queued since the batch began that may join it (at most `room`), taken off the queue. */
  takeQueued(room: number): Pending[];
  /** Where units arriving while the lock is awaited join the batch (null once it is had). */
  joinWith(joining: Joining | null): void;
  /** Whether `client` is still the writer connection (not dropped after it broke). */
  isWriter(client: pg.Client): boolean;
}

/**
 * A batch in few flights under the writers' lock: the units' streams read with the projection rows they
 * will likely touch (guessRows), each unit decided in memory in order, the rows the guess missed loaded,
 * then the events, rows, hooks' statements and COMMIT sent together. True when the batch is settled
 * (committed, or failed for a reason a redo would not cure: the lock not had, the connection lost); false
 * when PostgreSQL refused a statement or a hook failed, to be redone unit by unit.
 */
export async function commitPipelined(client: pg.Client, batch: Pending[], ctx: PipelineContext): Promise<boolean> {
  const units = batch.map((pending) => pending.unit);
  const first = batch.length;
  const outcomes: Outcome[] = [];
  const appended: StoredLedgerEvent[] = [];
  const byUnit: StoredLedgerEvent[][] = [];
  const hooks: { hook: BeforeCommit; appended: readonly StoredLedgerEvent[] }[] = [];
  let preloaded = new Map<PgProjectionTable, Map<string, Row | null>>();
  // A guessed row's load PostgreSQL refused aborted the transaction: the batch is redone.
  const failed = { prefetch: false };
  const at = { started: 0, locked: 0, read: 0, decided: 0, loaded: 0 };
  let joined = { waiting: 0, after: 0 };
  let xid: string;
  let last: number;
  try {
    const { streams, versioned } = streamsToRead(units);
    at.started = performance.now();
    const began = ctx.transaction.begin(client);
    const read = readStreams(client, streams, versioned);
    const prefetched = guessRows(client, units, ctx.tablesOf, ctx, failed);
    const joining = new Joining(client, batch, units, new Set(streams), new Set(versioned), prefetched, failed, ctx);
    ctx.joinWith(joining);
    let head: { last: number; xid: string };
    try {
      head = await began;
    } finally {
      ctx.joinWith(null);
      // Whatever the lock's outcome: on a failure the reads fail with the batch.
      try {
        joining.send();
      } catch {
        // The connection is gone: the batch fails with the lock's error.
      }
    }
    at.locked = performance.now();
    xid = head.xid;
    // One wait for the whole first flight: no other work gets a turn between its answers while the lock is held.
    const [streamsRead, moreRead, rows] = await Promise.all([read, joining.reads(), guessedRows(prefetched.splice(0))]);
    preloaded = rows;
    const view = new LockedView(head.last);
    for (const one of [streamsRead, ...moreRead]) view.addRead(one);
    for (const [id, version] of view.versionsRead()) ctx.seen.set(id, version);
    at.read = performance.now();
    // Units queued meanwhile join too, their streams read in one more flight.
    const late = ctx.takeQueued(ctx.maxBatch - batch.length);
    joined = { waiting: joining.size - first, after: late.length };
    if (late.length > 0) {
      for (const pending of late) joining.join(pending);
      joining.send();
      const [lateRead] = await Promise.all([joining.reads(), guessedRows(prefetched.splice(0), preloaded)]);
      for (const one of lateRead) view.addRead(one);
      for (const [id, version] of view.versionsRead()) ctx.seen.set(id, version);
      at.read = performance.now();
    }
    for (const unit of units) {
      view.startUnit(unit);
      try {
        const { value, beforeCommit } = unit.plan(view);
        const { events } = view.endUnit();
        appended.push(...events);
        byUnit.push(events);
        if (beforeCommit) hooks.push({ hook: beforeCommit, appended: events });
        outcomes.push({ ok: true, value });
      } catch (error) {
        view.dropUnit();
        outcomes.push({ ok: false, value: error });
      }
    }
    last = view.last;
    at.decided = performance.now();
  } catch (error) {
    await ctx.transaction.rollback(client);
    if (failed.prefetch && ctx.isWriter(client)) return false;
    for (const pending of batch) pending.reject(translateLockTimeout(error));
    return true;
  }
  // Any statement of `deferred` that fails rolls the whole batch back.
  const deferred = new Deferred();
  const afterCommit: (() => void)[] = [];
  let missed = 0;
  try {
    if (appended.length > 0) {
      deferred.add(insertEvents(client, appended));
      // No wait between the reads' answers and COMMIT when every row was guessed (the common case).
      const projection = new BatchProjection(ctx.tablesOf, byUnit, preloaded);
      missed = projection.missing;
      if (missed > 0) await projection.load(client);
      for (const write of projection.write(client)) deferred.add(write);
    }
    const tx: PgWriteTransaction = { store: 'postgres', client, last, defer: deferred.add, afterCommit: (callback) => afterCommit.push(callback) };
    for (const { hook, appended: mine } of hooks) await hook(mine, tx);
    at.loaded = performance.now();
  } catch (error) {
    // Before COMMIT: a lost connection fails the batch, anything else has it redone.
    await ctx.transaction.rollback(client);
    await deferred.settle().catch(() => undefined);
    if (ctx.isWriter(client)) return false;
    for (const pending of batch) pending.reject(error);
    return true;
  }
  const committed = await ctx.transaction.commit(client, xid, appended.length > 0 ? last : null);
  await deferred.settle().catch(() => undefined);
  if (committed === false) return false;
  if (committed !== true) {
    for (const pending of batch) pending.reject(committed);
    return true;
  }
  for (const stored of appended) ctx.seen.set(stored.streamId, stored.streamPosition);
  for (const callback of afterCommit) callback();
  const committedAt = performance.now();
  ctx.onBatch?.({
    units: batch.length,
    path: 'pipelined',
    lockWaitMs: at.locked - at.started,
    lockHeldMs: committedAt - at.locked,
    phases: { readMs: at.read - at.locked, decideMs: at.decided - at.read, loadMs: at.loaded - at.decided, commitMs: committedAt - at.loaded },
    rows: { guessed: [...preloaded.values()].reduce((n, rows) => n + rows.size, 0), missed },
    joined,
  });
  settleAll(batch, outcomes);
  ctx.committed(client, last);
  return true;
}

/**
 * Units joining a pipelined batch after its first flight, settled with it whatever happens: the reads
 * they need that the batch has not made are sent, gathered per turn of the event loop. Sent while the
 * lock is awaited, they run behind its statement once it is granted: no flight of their own.
 */
export class Joining {
  private waiting: WriteUnit<unknown>[] = [];
  private readonly sent: Promise<StreamsRead>[] = [];
  private scheduled = false;

  constructor(
    private readonly client: pg.Client,
    private readonly batch: Pending[],
    private readonly units: WriteUnit<unknown>[],
    private readonly streams: Set<string>,
    private readonly versioned: Set<string>,
    private readonly prefetched: GuessedLoad[],
    private readonly failed: { prefetch: boolean },
    private readonly ctx: PipelineContext,
  ) {}

  get size(): number {
    return this.batch.length;
  }

  join(pending: Pending): void {
    this.batch.push(pending);
    this.units.push(pending.unit);
    this.waiting.push(pending.unit);
  }

  /** Sends the waiting units' reads after this turn of the event loop. */
  sendSoon(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  send(): void {
    const units = this.waiting.splice(0);
    if (units.length === 0) return;
    const { streams, versioned } = streamsToRead(units, this.streams, this.versioned);
    for (const id of streams) this.streams.add(id);
    for (const id of versioned) this.versioned.add(id);
    this.sent.push(readStreams(this.client, streams, versioned));
    // After the reads, as in the first flight.
    this.prefetched.push(...guessRows(this.client, units, this.ctx.tablesOf, this.ctx, this.failed));
  }

  /** The reads sent so far and not yet taken. */
  reads(): Promise<StreamsRead[]> {
    return Promise.all(this.sent.splice(0));
  }
}
