import type pg from 'pg';
import { DryRunRollback } from '../decide.js';
import { settleAll, type Outcome } from '../group-commit-queue.js';
import type { BatchReport } from '../write-batches.js';
import { translateLockTimeout, extended, type BatchTransaction } from './pg-batch-transaction.js';
import { insertEvents } from './pg-event-rows.js';
import { BatchProjection, type PgProjectionTable } from './pg-projection-writer.js';
import { Deferred, LockedView, readStreams, streamsToRead, type Pending, type PgWriteTransaction, type WriteUnit } from './pg-write-unit.js';

/** What both ways of running a batch need of the runner. */
export interface UnitByUnitContext {
  readonly transaction: BatchTransaction;
  readonly tablesOf: (type: string) => readonly PgProjectionTable[];
  readonly onBatch?: ((batch: BatchReport) => void) | undefined;
  /** After a commit, with the log's last position. */
  committed(client: pg.Client, last: number): void;
}

/**
 * The batch in one transaction, each unit in its own savepoint: a unit that fails (its decision, a unique
 * index, a hook, a deferred statement) is rolled back alone and the others commit. For a dry run, and for
 * a pipelined batch PostgreSQL refused (`redone`).
 */
export async function commitUnitByUnit(client: pg.Client, batch: readonly Pending[], ctx: UnitByUnitContext, path: 'per-unit' | 'redone'): Promise<void> {
  const outcomes: Outcome[] = [];
  let xid: string;
  let startedAt = 0;
  let lockedAt = 0;
  let appended = false;
  let last = 0;
  /** The callbacks of the units released: called once the batch commits. */
  const afterCommit: (() => void)[] = [];
  try {
    startedAt = performance.now();
    const head = await ctx.transaction.begin(client);
    lockedAt = performance.now();
    xid = head.xid;
    const deferred = new Deferred();
    let unitCallbacks: (() => void)[] = [];
    const tx: PgWriteTransaction = { store: 'postgres', client, last: head.last, defer: deferred.add, afterCommit: (callback) => unitCallbacks.push(callback) };
    for (const { unit } of batch) {
      const saved = tx.last;
      unitCallbacks = [];
      // The savepoint goes out with the unit's first statements, the RELEASE with its last ones.
      const savepoint = client.query(extended('SAVEPOINT unit'));
      try {
        const [, value] = await Promise.all([savepoint, runUnit(tx, unit, ctx.tablesOf)]);
        const release = client.query(extended('RELEASE SAVEPOINT unit'));
        release.catch(() => undefined); // a failed deferred statement is the cause to report
        await deferred.settle();
        await release;
        afterCommit.push(...unitCallbacks);
        outcomes.push({ ok: true, value });
      } catch (error) {
        // A deferred statement that failed is the cause: the unit's statements after it were refused.
        const cause = await deferred.settle().then(
          () => error,
          (failed: unknown) => failed,
        );
        // Still inside the unit's savepoint: a RELEASE refused in the aborted transaction leaves it in place.
        await client.query('ROLLBACK TO SAVEPOINT unit');
        await client.query('RELEASE SAVEPOINT unit');
        tx.last = saved;
        outcomes.push({ ok: false, value: cause });
      }
    }
    appended = tx.last > head.last;
    last = tx.last;
  } catch (error) {
    await ctx.transaction.rollback(client);
    for (const pending of batch) pending.reject(translateLockTimeout(error));
    return;
  }
  const committed = await ctx.transaction.commit(client, xid, appended ? last : null);
  if (committed !== true) {
    const failure = committed === false ? new Error('PostgreSQL rolled the batch back at COMMIT') : committed;
    for (const pending of batch) pending.reject(failure);
    return;
  }
  for (const callback of afterCommit) callback();
  ctx.onBatch?.({ units: batch.length, path, lockWaitMs: lockedAt - startedAt, lockHeldMs: performance.now() - lockedAt });
  settleAll(batch, outcomes);
  ctx.committed(client, last);
}

/**
 * One unit inside its savepoint: its streams read, its decision, its events inserted with their projection
 * rows (the rows' writes deferred to the RELEASE), then its hook. A dry run throws `DryRunRollback` with
 * its value before its hook.
 */
async function runUnit(tx: PgWriteTransaction, unit: WriteUnit<unknown>, tablesOf: (type: string) => readonly PgProjectionTable[]): Promise<unknown> {
  const view = new LockedView(tx.last);
  const { streams, versioned } = streamsToRead([unit]);
  if (streams.length + versioned.length > 0) view.addRead(await readStreams(tx.client, streams, versioned));
  view.startUnit(unit);
  const { value, beforeCommit } = unit.plan(view);
  const { events, appends } = view.endUnit();
  // The insert's error (a unique violation) is the one to report: the projections' then only say the unit
  // is aborted. Each append is projected apart, so a unique index refuses what it would command by command.
  const projection = new BatchProjection(tablesOf, appends);
  const inserted = insertEvents(tx.client, events);
  const projected = projection.load(tx.client).then(() => projection.write(tx.client).forEach(tx.defer));
  projected.catch(() => undefined);
  await inserted;
  await projected;
  tx.last = view.last;
  if (unit.dryRun) throw new DryRunRollback(value);
  if (beforeCommit) await beforeCommit(events, tx);
  return value;
}
