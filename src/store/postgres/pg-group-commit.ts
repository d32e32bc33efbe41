import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import type { AnyRowProjection } from '../../../projections/projection.js';
import { GroupCommitQueue, pending, type Pending } from '../group-commit-queue.js';
import type { BatchReport } from '../write-batches.js';
import { BatchTransaction } from './pg-batch-transaction.js';
import { newWriterClient, type PgOptions } from './pg-database.js';
import { commitPipelined, type Joining, type PipelineContext } from './pg-pipelined-batch.js';
import { linkTallies } from '../projection-replay.js';
import { PgProjectionTable } from './pg-projection-writer.js';
import { ReadAhead } from '../read-ahead.js';
import { commitUnitByUnit } from './pg-unit-by-unit.js';
import type { WriteUnit } from './pg-write-unit.js';

export interface PgGroupCommitOptions extends PgOptions {
  readonly maxBatch?: number;
  /** The inline projections every batch writes; a batch is refused when the database holds a newer version of one. */
  readonly inline?: readonly AnyRowProjection[];
  /** Told of every batch that reached COMMIT or was redone: how many units, and how it ran. */
  readonly onBatch?: (batch: BatchReport) => void;
  /** When the writer connection is replaced to replan its statements (`replanned`). Defaults: 2,000 and 4. */
  readonly replan?: { readonly floor: number; readonly growth: number };
}

export type { BatchReport } from '../write-batches.js';

/**
 * Group commit for PostgreSQL, with SQLite's semantics: the units of a batch run in one transaction on the
 * writer connection, under an advisory lock every instance takes before writing (one writer at a time), so
 * positions assigned under it (max + 1) are gapless in commit order. A batch runs pipelined
 * (pg-pipelined-batch.ts); one PostgreSQL refused, or one holding a dry run, runs unit by unit in savepoints
 * (pg-unit-by-unit.ts), so a failing unit fails alone. No promise settles before COMMIT returned.
 */
export class PgGroupCommitRunner {
  private readonly queue: GroupCommitQueue<WriteUnit<unknown>>;
  private writer: pg.Client | null = null;
  private closed = false;
  /** Short streams read outside the lock (a command reading its stream before it is queued): what guesses are planned on. */
  readonly readAhead = new ReadAhead(256, 64);
  /** The pipelined batch waiting for the writers' lock, which units arriving now join. */
  private joining: Joining | null = null;
  /** The log's last position when the writer connection ran its first batch (its statements were planned then). */
  private plannedAt: number | null = null;
  private readonly replan: { readonly floor: number; readonly growth: number };
  private readonly context: PipelineContext;

  constructor(
    private readonly url: string,
    private readonly options: PgGroupCommitOptions = {},
  ) {
    this.replan = options.replan ?? { floor: 2_000, growth: 4 };
    const maxBatch = options.maxBatch ?? 256;
    this.queue = new GroupCommitQueue((batch) => this.commitBatch(batch), { maxBatch });
    const tablesByType = new Map<string, PgProjectionTable[]>();
    const tables = (options.inline ?? []).map((projection) => new PgProjectionTable(projection));
    linkTallies(tables);
    for (const table of tables) {
      for (const type of table.projection.handles) tablesByType.set(type, [...(tablesByType.get(type) ?? []), table]);
    }
    this.context = {
      transaction: new BatchTransaction(url, { ...options, projections: options.inline ?? [] }, (client) => this.drop(client)),
      tablesOf: (type) => tablesByType.get(type) ?? [],
      seen: new LRUCache({ max: 10_000 }),
      readAhead: this.readAhead,
      maxBatch,
      onBatch: options.onBatch,
      takeQueued: (room) => this.queue.take(room, (unit) => !unit.dryRun),
      joinWith: (joining) => {
        this.joining = joining;
      },
      isWriter: (client) => this.writer === client,
      committed: (client, last) => this.replanned(client, last),
    };
  }

  /** Runs `unit` with the batch it arrives in; settles once that batch committed (or failed). */
  run<T>(unit: WriteUnit<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the ledger is closed'));
    // A batch waiting for the writers' lock takes it in (see Joining) unless it is full, units queued before it, or it is a dry run.
    const joining = this.joining;
    if (joining && !unit.dryRun && this.queue.length === 0 && joining.size < this.context.maxBatch) {
      return pending(unit as WriteUnit<unknown>, (entry) => {
        joining.join(entry);
        joining.sendSoon();
      });
    }
    return this.queue.add(unit);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.drained();
    await this.writer?.end().catch(() => undefined);
    this.writer = null;
  }

  private async commitBatch(batch: Pending<WriteUnit<unknown>>[]): Promise<void> {
    const dryRun = batch.some((entry) => entry.unit.dryRun);
    if (!dryRun) {
      const client = await this.connection(batch);
      if (!client || (await commitPipelined(client, batch, this.context))) return;
    }
    const client = await this.connection(batch);
    if (client) await commitUnitByUnit(client, batch, this.context, dryRun ? 'per-unit' : 'redone');
  }

  /** The writer connection, opened when there is none; null when it cannot be, the batch failed with the reason. */
  private async connection(batch: readonly Pending<unknown>[]): Promise<pg.Client | null> {
    try {
      if (!this.writer) {
        const client = await newWriterClient(this.url, this.options);
        client.on('error', () => {
          if (this.writer === client) this.writer = null;
        });
        this.writer = client;
        this.plannedAt = null;
      }
      return this.writer;
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return null;
    }
  }

  /**
   * After a commit: the writer connection is ended once the log holds at least `replan.floor` events and
   * `replan.growth` times what it held when the connection began. A prepared statement keeps the plan made
   * for a young database's tables, which can pick the wrong index under the writers' lock.
   */
  private replanned(client: pg.Client, last: number): void {
    if (this.plannedAt === null) {
      this.plannedAt = last;
      return;
    }
    if (last < this.replan.floor || last < this.plannedAt * this.replan.growth) return;
    this.plannedAt = null;
    this.drop(client);
  }

  private drop(client: pg.Client): void {
    if (this.writer === client) this.writer = null;
    void client.end().catch(() => undefined);
  }
}
