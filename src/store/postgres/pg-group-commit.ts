import type pg from 'pg';
import type { AnyRowProjection } from '../../../projections/projection.js';
import type { BatchReport } from '../write-batches.js';
import { BatchTransaction } from './pg-batch-transaction.js';
import { newWriterClient, type PgOptions } from './pg-database.js';
import { commitPipelined, type Joining, type PipelineContext } from './pg-pipelined-batch.js';
import { linkTallies } from '../projection-replay.js';
import { PgProjectionTable } from './pg-projection-writer.js';
import { ReadAhead, SeenVersions } from './pg-row-guess.js';
import { commitUnitByUnit, type UnitByUnitContext } from './pg-unit-by-unit.js';
import type { Pending, WriteUnit } from './pg-write-unit.js';

export interface PgGroupCommitOptions extends PgOptions {
  readonly maxBatch?: number;
  /** Notified of the last position at each commit that appended events (the NOTIFY is sent in the transaction). */
  readonly notifyChannel?: string;
  /** The projections this build writes inline, with their versions: a batch is refused when the database holds one newer. */
  readonly projections?: readonly { readonly name: string; readonly version: number }[];
  /** The inline projections every batch writes in its transaction. */
  readonly inline?: readonly AnyRowProjection[];
  /** Told of every batch that reached COMMIT or was redone: how many units, and how it ran. */
  readonly onBatch?: (batch: BatchReport) => void;
  /** When the writer connection is replaced to replan its statements (`replanned`). Defaults: 2,000 and 4. */
  readonly replan?: { readonly floor: number; readonly growth: number };
}

export type { BatchReport } from '../write-batches.js';

/**
 * Group commit for PostgreSQL, with SQLite's semantics: units of work that arrive together run in one
 * transaction on the writer connection, under an advisory lock every instance takes before writing (one
 * writer at a time, as `BEGIN IMMEDIATE`). The lock is its own statement of a READ COMMITTED transaction, so
 * what follows sees the previous holder's commit, and positions assigned under it (max + 1) are gapless in
 * commit order. A batch runs pipelined (pg-pipelined-batch.ts); if PostgreSQL refuses anything of it, it is
 * redone unit by unit in savepoints (pg-unit-by-unit.ts), as a batch holding a dry run is, so a failing unit
 * fails alone. No promise settles before COMMIT returned; a COMMIT whose connection was lost is settled by
 * `pg_xact_status` on a new connection.
 */
export class PgGroupCommitRunner {
  private queue: Pending[] = [];
  private flushing = false;
  private scheduled = false;
  private writer: pg.Client | null = null;
  private closed = false;
  /** Short streams read outside the lock (a command reading its stream before it is queued): what its guess is planned on. */
  readonly readAhead = new ReadAhead(256, 64);
  /** The pipelined batch waiting for the writers' lock, which units arriving now join. */
  private joining: Joining | null = null;
  /** The log's last position when the writer connection ran its first batch (its statements' plans were made then). */
  private plannedAt: number | null = null;
  private readonly replan: { readonly floor: number; readonly growth: number };
  /** What both ways of running a batch are given. */
  private readonly context: PipelineContext & UnitByUnitContext;

  constructor(
    private readonly url: string,
    private readonly options: PgGroupCommitOptions = {},
  ) {
    this.replan = options.replan ?? { floor: 2_000, growth: 4 };
    const tablesByType = new Map<string, PgProjectionTable[]>();
    const tables = (options.inline ?? []).map((projection) => new PgProjectionTable(projection));
    linkTallies(tables);
    for (const table of tables) {
      for (const type of table.projection.handles) tablesByType.set(type, [...(tablesByType.get(type) ?? []), table]);
    }
    this.context = {
      transaction: new BatchTransaction(url, { ...options, projections: options.projections ?? [] }, (client) => this.drop(client)),
      tablesOf: (type) => tablesByType.get(type) ?? [],
      /** Stream versions this writer last saw under the lock (bounded): what guesses are planned on. */
      seen: new SeenVersions(10_000),
      readAhead: this.readAhead,
      maxBatch: options.maxBatch ?? 256,
      onBatch: options.onBatch,
      takeQueued: (room) => {
        const taken: Pending[] = [];
        while (taken.length < room && this.queue[0] && !this.queue[0].unit.dryRun) taken.push(this.queue.shift()!);
        return taken;
      },
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
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = { unit: unit as WriteUnit<unknown>, resolve: resolve as (value: unknown) => void, reject };
      // A batch waiting for the writers' lock takes it in (see Joining), unless it is full, units queued
      // before it, or it is a dry run (which runs unit by unit).
      if (this.joining && !unit.dryRun && this.queue.length === 0 && this.joining.size < this.context.maxBatch) {
        this.joining.join(pending);
        this.joining.sendSoon();
        return;
      }
      this.queue.push(pending);
      this.schedule();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.flushing || this.queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.writer?.end().catch(() => undefined);
    this.writer = null;
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    const batch = this.queue.splice(0, this.context.maxBatch);
    try {
      if (batch.length > 0) await this.commitBatch(batch);
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async commitBatch(batch: Pending[]): Promise<void> {
    const dryRun = batch.some((pending) => pending.unit.dryRun);
    if (!dryRun) {
      const client = await this.connection(batch);
      if (!client || (await commitPipelined(client, batch, this.context))) return;
      // Something of the batch failed in PostgreSQL and it was rolled back: unit by unit, each in its savepoint.
    }
    const client = await this.connection(batch);
    if (client) await commitUnitByUnit(client, batch, this.context, dryRun ? 'per-unit' : 'redone');
  }

  /** The writer connection, opened when there is none; null when it cannot be, the batch failed with the reason. */
  private async connection(batch: readonly Pending[]): Promise<pg.Client | null> {
    try {
      if (!this.writer) {
        // Pipelined: statements that do not wait for each other's answers go out in one flight.
        const client = await newWriterClient(this.url, this.options);
        client.on('error', () => {
          if (this.writer === client) this.writer = null;
        });
        this.writer = client;
        this.plannedAt = null;
      }
      return this.writer;
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return null;
    }
  }

  /**
   * After a commit: the writer connection is ended (the next batch opens a new one) once the log holds at
   * least `replan.floor` events and `replan.growth` times what it held when the connection began. A prepared
   * statement keeps the plan made for the tables as they were, which on a young database can pick the wrong
   * index under the writers' lock; a new session plans for the tables as they are now.
   */
  private replanned(client: pg.Client, last: number): void {
    if (this.plannedAt === null) {
      this.plannedAt = last;
      return;
    }
    if (last < this.replan.floor || last < this.plannedAt * this.replan.growth) return;
    if (this.writer === client) this.writer = null;
    this.plannedAt = null;
    void client.end().catch(() => undefined);
  }

  private drop(client: pg.Client): void {
    if (this.writer === client) this.writer = null;
    void client.end().catch(() => undefined);
  }
}
