import type pg from 'pg';
import type { AnyRowProjection } from '../../../projections/projection.js';
import { toStoredEvent, type EventRow } from '../event-codec.js';
import type { BatchReport } from '../write-batches.js';
import { StoreUnavailableError, type BeforeCommit, type StoredLedgerEvent, type WriteTransaction } from '../event-store.js';
import { refuseVersionsAhead } from '../projection-maintenance.js';
import { holdsNul, LOCK_CLASS, newClient, newWriterClient, sqlState, WRITE_LOCK, type PgOptions } from './pg-database.js';
import { insertEvents } from './pg-event-rows.js';
import { BatchProjection, linkTallies, PgProjectionTable, touchedKeys } from './pg-projection-writer.js';
import type { Row } from '../projection-rows.js';

/**
 * The transaction a unit of work runs in: the writer connection inside the
 * unit's savepoint, under the writers' lock. `last` is the global position of
 * the last event of the log as this transaction sees it: the event store
 * assigns positions `last + 1, ...` (gapless, in commit order) and moves it on.
 */
export interface PgWriteTransaction extends WriteTransaction {
  readonly store: 'postgres';
  readonly client: pg.ClientBase;
  last: number;
  /**
   * Statements of the unit sent and not awaited (its projection rows' writes): the runner awaits them
   * together with the unit's RELEASE, in one flight, and rolls the unit back if one failed.
   */
  defer(statement: Promise<unknown>): void;
}

/** A unit's deferred statements: their first failure in the order they were sent (later ones only say the unit was aborted). */
class Deferred {
  private readonly statements: Promise<{ ok: true } | { ok: false; error: unknown }>[] = [];

  add(statement: Promise<unknown>): void {
    this.statements.push(statement.then(() => ({ ok: true }) as const, (error: unknown) => ({ ok: false, error }) as const));
  }

  /** Resolves when every one settled; throws the first failure. */
  async settle(): Promise<void> {
    const outcomes = await Promise.all(this.statements.splice(0));
    const failed = outcomes.find((outcome) => !outcome.ok);
    if (failed && !failed.ok) throw failed.error;
  }
}

/** The SQLite counterpart is the connection; here the writer client of the batch. */
export function postgresTransaction(tx: WriteTransaction): PgWriteTransaction {
  if (tx.store !== 'postgres') throw new Error(`a PostgreSQL hook was given a ${tx.store} transaction`);
  return tx as PgWriteTransaction;
}

/** The COMMIT's outcome could not be learnt (the connection died and the transaction's status is unknown): nothing is acknowledged. */
export class CommitOutcomeUnknownError extends StoreUnavailableError {
  constructor(cause: unknown) {
    super('the connection to PostgreSQL was lost during COMMIT and the outcome could not be established', { cause });
    this.name = 'CommitOutcomeUnknownError';
  }
}

/**
 * What a planned unit sees of the batch: the streams it named, as the log
 * holds them under the lock with the events of the batch's earlier units
 * (and its own) added, and where the next events go.
 */
export interface BatchView {
  /** The stream's events (only streams the unit named in `streams`). */
  history(streamId: string): readonly StoredLedgerEvent[];
  /** The stream's version (streams the unit named in `streams` or `versions`). */
  version(streamId: string): number;
  /** The global position of the log's last event, the unit's appends included. */
  readonly last: number;
  /** Adds events the unit appends (positions after `last` and after the stream's version, in order). */
  append(stored: readonly StoredLedgerEvent[]): void;
}

/**
 * A unit of work whose reads are known before it runs, so that a batch of
 * them runs pipelined: every stream of every unit read in one flight, each
 * unit decided in memory in order, every row the batch's events touch loaded
 * in a second flight, and the events, the rows, the hooks' statements and
 * COMMIT sent in a third. When anything of that fails in PostgreSQL (a
 * unique index, a hook's check) the batch is redone unit by unit with `work`,
 * each in its savepoint, so the failing unit fails alone.
 */
export interface PlannedUnit<T> {
  readonly streams: readonly string[];
  readonly versions: readonly string[];
  /** Decides on the view, synchronously, appending through it; throws to fail alone (nothing of it written). */
  plan(view: BatchView): { readonly value: T; readonly beforeCommit?: BeforeCommit | undefined };
  /** The same unit as a unit of work on the per-unit path. */
  work(tx: PgWriteTransaction): Promise<T>;
}

interface Pending {
  readonly work: (tx: PgWriteTransaction) => Promise<unknown>;
  readonly planned?: PlannedUnit<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export interface PgGroupCommitOptions extends PgOptions {
  readonly maxBatch?: number;
  /** Called after each commit that appended events, with the last position (the NOTIFY is sent in the transaction). */
  readonly notifyChannel?: string;
  /**
   * The projections this build writes inline, with their versions: a batch is refused when the database
   * holds one at a higher version (a newer instance rebuilt it; research pitfall 8, rolling deploys).
   */
  readonly projections?: readonly { readonly name: string; readonly version: number }[];
  /** The inline projections a pipelined batch writes (without them every batch runs unit by unit). */
  readonly inline?: readonly AnyRowProjection[];
  /** Told of every batch that reached COMMIT or was redone: how many units, and how it ran. */
  readonly onBatch?: (batch: BatchReport) => void;
  /**
   * When the writer connection is replaced so that its statements are planned again (see `replanned`):
   * once the log holds at least `floor` events and `growth` times what it held when the connection's
   * first batch ran. Defaults: 2,000 and 4.
   */
  readonly replan?: { readonly floor: number; readonly growth: number };
}

export type { BatchReport } from '../write-batches.js';

/**
 * Group commit for PostgreSQL, with SQLite's semantics: units of work that
 * arrive together run one after another in ONE transaction on the writer
 * connection, each in its own savepoint, under a transaction-scoped advisory
 * lock that every instance takes before writing (one writer at a time across
 * instances, as `BEGIN IMMEDIATE` on SQLite):
 *
 * - the lock is taken in its own statement of a READ COMMITTED transaction,
 *   so the statements after it see everything the previous holder committed
 *   (a REPEATABLE READ snapshot, or a read in the lock's statement, would
 *   predate it); positions are assigned under it as max + 1, so they are
 *   gapless and rise in commit order and no reader ever skips an event;
 * - each unit sees what the units before it in the batch wrote; a unit that
 *   throws is rolled back to its savepoint alone;
 * - no caller's promise settles before COMMIT returned. If the connection is
 *   lost during COMMIT, the transaction's status is asked on a new connection
 *   (`pg_xact_status`): committed, the units succeed; anything else, they fail.
 */
export class PgGroupCommitRunner {
  private queue: Pending[] = [];
  private flushing = false;
  private scheduled = false;
  private writer: pg.Client | null = null;
  private closed = false;
  private readonly maxBatch: number;
  private readonly projections: readonly { readonly name: string; readonly version: number }[];
  private tablesByType: Map<string, PgProjectionTable[]> | null = null;
  /** Stream versions this writer last saw under the lock (bounded): what guesses are planned on (see prefetch). */
  private readonly seenVersions = new SeenVersions(10_000);
  /** Short streams read outside the lock (a command reading its stream before it is queued): what its guess is planned on. */
  readonly readAhead = new ReadAhead(256, 64);
  /** The pipelined batch waiting for the writers' lock, which units arriving now join. */
  private joining: Joining | null = null;
  /** The log's last position when the writer connection ran its first batch (its statements' plans were made then). */
  private plannedAt: number | null = null;
  private readonly replan: { readonly floor: number; readonly growth: number };

  constructor(
    private readonly url: string,
    private readonly options: PgGroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 256;
    this.replan = options.replan ?? { floor: 2_000, growth: 4 };
    this.projections = options.projections ?? [];
    if (options.inline) {
      this.tablesByType = new Map();
      const tables = options.inline.map((projection) => new PgProjectionTable(projection));
      linkTallies(tables);
      for (const table of tables) {
        for (const type of table.projection.handles) this.tablesByType.set(type, [...(this.tablesByType.get(type) ?? []), table]);
      }
    }
  }

  /** A planned unit: pipelined with the batch it arrives in when every unit of that batch is planned. */
  runPlanned<T>(unit: PlannedUnit<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the ledger is closed'));
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = { work: unit.work, planned: unit as PlannedUnit<unknown>, resolve: resolve as (value: unknown) => void, reject };
      // A batch waiting for the writers' lock takes it in (see Joining), unless it is full or units queued before it.
      if (this.joining && this.queue.length === 0 && this.joining.size < this.maxBatch) {
        this.joining.join(pending);
        this.joining.sendSoon();
        return;
      }
      this.queue.push(pending);
      this.schedule();
    });
  }

  run<T>(work: (tx: PgWriteTransaction) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the ledger is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
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

  /**
   * After a commit: the writer connection is ended (the next batch opens a new one) once the log has grown
   * `replan.growth` times past what it held when the connection began. PostgreSQL plans a prepared
   * statement for the tables as they are then and keeps that plan: made on a new database, a batch's
   * lookups by key went through the wrong index of a table grown since (account_import_processes by its
   * list index, 0.43 ms a row against 0.01 by its key) until autovacuum analyzed it, and every instance
   * waited on the writers' lock meanwhile. A new session plans them for the tables as they are now; past
   * a few thousand events the plans are those of any size (from a million events on, about once in four
   * times as many).
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

  private async connection(): Promise<pg.Client> {
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
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    const batch = this.queue.splice(0, this.maxBatch);
    try {
      if (batch.length > 0) await this.commitBatch(batch);
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async commitBatch(batch: Pending[]): Promise<void> {
    let client: pg.Client;
    try {
      client = await this.connection();
    } catch (error) {
      for (const unit of batch) unit.reject(error);
      return;
    }
    const pipelined = this.tablesByType !== null && batch.every((unit) => unit.planned);
    if (pipelined) {
      const done = await this.commitPipelined(client, batch);
      if (done) return;
      // Something of the batch failed in PostgreSQL and it was rolled back: unit by unit, each in its savepoint.
      try {
        client = await this.connection();
      } catch (error) {
        for (const unit of batch) unit.reject(error);
        return;
      }
    }
    const outcomes: { ok: boolean; value: unknown }[] = [];
    let xid: string;
    let startedAt = 0;
    let lockedAt = 0;
    let appended = false;
    let last = 0;
    try {
      // One flight (the writer connection pipelines): the lock is its own statement, and the read after it
      // runs once the lock is granted, with a snapshot taken then (READ COMMITTED), so it sees the previous
      // holder's commit.
      startedAt = performance.now();
      const head = await this.begin(client);
      lockedAt = performance.now();
      xid = head.xid;
      const deferred = new Deferred();
      const tx: PgWriteTransaction = { store: 'postgres', client, last: head.last, defer: (statement) => deferred.add(statement) };
      const start = tx.last;
      for (const unit of batch) {
        const saved = tx.last;
        // The savepoint goes out with the unit's first statements, the RELEASE with its last ones.
        const savepoint = client.query(extended('SAVEPOINT unit'));
        try {
          const [, value] = await Promise.all([savepoint, unit.work(tx)]);
          const release = client.query(extended('RELEASE SAVEPOINT unit'));
          release.catch(() => undefined); // a failed deferred statement is the error to report
          await deferred.settle();
          await release;
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
      appended = tx.last > start;
      last = tx.last;
    } catch (error) {
      // Before COMMIT: nothing was committed; a broken connection is replaced on the next batch.
      await client.query('ROLLBACK').catch(() => this.drop(client));
      for (const unit of batch) unit.reject(translateLockTimeout(error));
      return;
    }
    const committed = await this.commit(client, xid, appended ? last : null);
    if (committed !== true) {
      const failure = committed === false ? new Error('PostgreSQL rolled the batch back at COMMIT') : committed;
      for (const unit of batch) unit.reject(failure);
      return;
    }
    this.options.onBatch?.({ units: batch.length, path: pipelined ? 'redone' : 'per-unit', lockWaitMs: lockedAt - startedAt, lockHeldMs: performance.now() - lockedAt });
    settleAll(batch, outcomes);
    this.replanned(client, last);
  }

  /**
   * BEGIN, the writers' lock and the head of the log, in one flight (the writer connection pipelines),
   * with `more` (statements whose answers need the lock) sent right after: the lock is its own statement,
   * and what follows it runs once the lock is granted, with a snapshot taken then (READ COMMITTED), so it
   * sees the previous holder's commit.
   */
  private async begin(client: pg.Client): Promise<{ last: number; xid: string }> {
    const [, , head] = await Promise.all([
      client.query(extended('BEGIN')),
      client.query({ name: 'ledger_write_lock', text: 'SELECT pg_advisory_xact_lock($1, $2)', values: [LOCK_CLASS, WRITE_LOCK] }),
      client.query<{ last: number; xid: string; ahead: string | null }>({
        name: 'ledger_write_head',
        text: `SELECT (SELECT coalesce(max(global_position), 0) FROM events) AS last, pg_current_xact_id()::text AS xid,
                      (SELECT json_object_agg(v.name, v.version)::text FROM projection_versions v
                         JOIN unnest($1::text[], $2::int[]) AS d(name, version) ON d.name = v.name WHERE v.version > d.version) AS ahead`,
        values: [this.projections.map((p) => p.name), this.projections.map((p) => p.version)],
      }),
    ]);
    // Under the lock, so no newer instance's rebuild can land between this check and the batch's COMMIT.
    const ahead = head.rows[0]!.ahead;
    if (ahead !== null) refuseVersionsAhead(new Map(Object.entries(JSON.parse(ahead) as Record<string, number>)), this.projections);
    return { last: head.rows[0]!.last, xid: head.rows[0]!.xid };
  }

  /**
   * COMMIT, with the NOTIFY of the last position when the batch appended (sent to listeners at commit, or
   * not at all): true once committed; false when PostgreSQL rolled the transaction back (a statement of it
   * had failed: COMMIT then answers ROLLBACK without an error, never to be taken for a commit); else the
   * error to fail the batch with (the connection lost and the outcome not committed, or unknown).
   */
  private async commit(client: pg.Client, xid: string, notify: number | null): Promise<true | false | unknown> {
    try {
      const notified = notify !== null && this.options.notifyChannel ? client.query({ name: 'ledger_notify', text: 'SELECT pg_notify($1, $2)', values: [this.options.notifyChannel, String(notify)] }) : null;
      notified?.catch(() => undefined); // a failed NOTIFY aborts the transaction: the COMMIT answers ROLLBACK
      const committed = await client.query(extended('COMMIT'));
      return committed.command === 'COMMIT';
    } catch (error) {
      this.drop(client);
      const committed = await this.committed(xid, (client as unknown as { processID: number | null }).processID).catch(() => null);
      if (committed === true) return true;
      return committed === false ? error : new CommitOutcomeUnknownError(error);
    }
  }

  /**
   * A batch of planned units in three flights (see PlannedUnit). True when it is settled (committed, or
   * failed for a reason a redo would not cure: the lock not had, the connection lost); false when it was
   * rolled back because a statement or a hook failed, to be redone unit by unit.
   */
  private async commitPipelined(client: pg.Client, batch: Pending[]): Promise<boolean> {
    const units = batch.map((unit) => unit.planned!);
    let lockedAt = 0;
    let readAt = 0;
    let decidedAt = 0;
    let loadedAt = 0;
    let lockWaitMs = 0;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    let xid: string;
    let last: number;
    const appended: StoredLedgerEvent[] = [];
    const byUnit: StoredLedgerEvent[][] = [];
    const hooks: { hook: BeforeCommit; appended: readonly StoredLedgerEvent[] }[] = [];
    let preloaded = new Map<PgProjectionTable, Map<string, Row | null>>();
    let missed = 0;
    // A guessed row's load refused by PostgreSQL (a key it cannot hold) aborts the transaction: then the batch is redone unit by unit.
    const failed = { prefetch: false };
    const first = batch.length;
    let joinedWaiting = 0;
    let joinedAfter = 0;
    try {
      const streams = [...new Set(units.flatMap((unit) => unit.streams))].filter((id) => !holdsNul([id]));
      const versioned = [...new Set(units.flatMap((unit) => unit.versions))].filter((id) => !holdsNul([id]) && !streams.includes(id));
      const startedAt = performance.now();
      const began = this.begin(client);
      const read = client.query<EventRow>({ name: 'ledger_batch_streams', text: READ_STREAMS, values: [streams] });
      const versions = client.query<{ stream_id: string; v: number }>({ name: 'ledger_batch_versions', text: READ_VERSIONS, values: [versioned] });
      read.catch(() => undefined);
      versions.catch(() => undefined);
      const prefetched = this.prefetch(client, units, failed);
      // Units that arrive while the lock is awaited (another instance holds it) join the batch at once, their
      // reads sent behind the lock's statement, so they run once it is granted, in the same flight.
      const joining = new Joining(this, client, batch, units, new Set(streams), new Set(versioned), prefetched, failed);
      this.joining = joining;
      let head: { last: number; xid: string };
      try {
        head = await began;
      } finally {
        this.joining = null;
        // Read behind the lock's statement whatever its outcome: on a failure they fail with the batch.
        try {
          joining.send();
        } catch {
          // The connection is gone: the batch fails with the lock's error.
        }
      }
      lockedAt = performance.now();
      lockWaitMs = lockedAt - startedAt;
      xid = head.xid;
      // The rest of the first flight in one wait (its answers come in together): the event loop and other
      // requests' work get no turn between its answers while the lock is held.
      const [streamsRead, versionsRead, moreRead, rows] = await Promise.all([read, versions, joining.reads(), preloadedRows(prefetched.splice(0))]);
      preloaded = rows;
      const view = new PipelinedView(head.last, streams, streamsRead.rows.map(toStoredEvent), versionsRead.rows);
      for (const more of moreRead) view.addRead(more.streams, more.events, more.versions);
      view.reportVersions(this.seenVersions);
      readAt = performance.now();
      // Units queued before the batch began and not taken into it join too, their streams read in one more flight.
      const late: Pending[] = [];
      while (batch.length + late.length < this.maxBatch && this.queue[0]?.planned) late.push(this.queue.shift()!);
      joinedWaiting = joining.size - first;
      joinedAfter = late.length;
      if (late.length > 0) {
        // Theirs from now on: whatever happens next settles them with the batch.
        for (const unit of late) joining.join(unit);
        joining.send();
        const [lateRead] = await Promise.all([joining.reads(), preloadedRows(prefetched.splice(0), preloaded)]);
        for (const more of lateRead) view.addRead(more.streams, more.events, more.versions);
        view.reportVersions(this.seenVersions);
        readAt = performance.now();
      }
      for (const unit of units) {
        view.startUnit(unit);
        try {
          const { value, beforeCommit } = unit.plan(view);
          const mine = view.endUnit();
          appended.push(...mine);
          byUnit.push(mine);
          if (beforeCommit) hooks.push({ hook: beforeCommit, appended: mine });
          outcomes.push({ ok: true, value });
        } catch (error) {
          view.dropUnit();
          outcomes.push({ ok: false, value: error });
        }
      }
      last = view.last;
      decidedAt = performance.now();
    } catch (error) {
      await client.query('ROLLBACK').catch(() => this.drop(client));
      if (failed.prefetch && this.writer === client) return false;
      for (const unit of batch) unit.reject(translateLockTimeout(error));
      return true;
    }
    // Everything of this attempt goes through `statements`: any that fails rolls the whole batch back.
    const deferred = new Deferred();
    try {
      if (appended.length > 0) {
        deferred.add(insertEvents(client, appended));
        // Synchronous from the reads' answers to COMMIT sent when every row was guessed (the common case).
        const projection = new BatchProjection((type) => this.tablesByType!.get(type) ?? [], byUnit, preloaded);
        missed = projection.missing;
        if (missed > 0) await projection.load(client);
        for (const write of projection.write(client)) deferred.add(write);
      }
      const tx: PgWriteTransaction = { store: 'postgres', client, last, defer: (statement) => deferred.add(statement) };
      for (const { hook, appended: mine } of hooks) await hook(mine, tx);
      loadedAt = performance.now();
    } catch (error) {
      // A load or a hook failed before COMMIT was sent: nothing of the batch is kept.
      await client.query('ROLLBACK').catch(() => this.drop(client));
      await deferred.settle().catch(() => undefined);
      return this.connectionLost(client, batch, error);
    }
    const committed = await this.commit(client, xid, appended.length > 0 ? last : null);
    await deferred.settle().catch(() => undefined);
    if (committed === false) return false;
    if (committed !== true) {
      for (const unit of batch) unit.reject(committed);
      return true;
    }
    for (const stored of appended) this.seenVersions.set(stored.streamId, stored.streamPosition);
    const committedAt = performance.now();
    this.options.onBatch?.({
      units: batch.length,
      path: 'pipelined',
      lockWaitMs,
      lockHeldMs: committedAt - lockedAt,
      phases: { readMs: readAt - lockedAt, decideMs: decidedAt - readAt, loadMs: loadedAt - decidedAt, commitMs: committedAt - loadedAt },
      rows: { guessed: [...(preloaded?.values() ?? [])].reduce((n, rows) => n + rows.size, 0), missed },
      joined: { waiting: joinedWaiting, after: joinedAfter },
    });
    settleAll(batch, outcomes);
    this.replanned(client, last);
    return true;
  }

  /**
   * The projection rows the units will likely touch, read in the flight of their streams (after the lock,
   * so what is read is what the batch decides on): each unit is planned once ahead, on a view of empty
   * streams (a new account's stream is empty; a guess that misses costs only the flight that loads the
   * rows it missed, as without it). The guess's events are thrown away.
   */
  prefetch(
    client: pg.Client,
    units: readonly PlannedUnit<unknown>[],
    failed: { prefetch: boolean },
  ): Promise<{ table: PgProjectionTable; rows: Map<string, Row | null> }>[] {
    const guessed: StoredLedgerEvent[] = [];
    for (const unit of units) {
      const view = new GuessView(this.seenVersions, this.readAhead);
      try {
        unit.plan(view);
        guessed.push(...view.appended);
      } catch {
        // No guess for this unit: its rows are loaded after it is decided.
      }
    }
    if (guessed.length === 0) return [];
    const keys = touchedKeys((type) => this.tablesByType?.get(type) ?? [], guessed);
    return [...keys].flatMap(([table, byId]) => {
      // A key PostgreSQL cannot hold (U+0000) is not guessed: its unit fails alone after it is decided.
      const held = [...byId.values()].filter((key) => !holdsNul(Object.values(key).filter((value): value is string => typeof value === 'string')));
      if (held.length === 0) return [];
      const load = table.loadMany(client, held).then((rows) => ({ table, rows }));
      load.catch(() => {
        failed.prefetch = true;
      });
      return [load];
    });
  }

  /** After a failure before COMMIT: a lost connection fails the batch (true); anything else has it redone (false). */
  private connectionLost(client: pg.Client, batch: Pending[], error: unknown): boolean {
    if (this.writer === client) return false;
    for (const unit of batch) unit.reject(error);
    return true;
  }

  /**
   * Whether the transaction committed (asked on a new connection after its own was lost); null when
   * PostgreSQL cannot tell. While it is still in progress its session runs on (PostgreSQL has not yet read
   * the COMMIT sent before the connection broke, or not yet seen the connection end): that session is
   * ended, which lets a COMMIT under way finish (it holds off the signal) and aborts anything else, and
   * the status is asked again until it is settled (at most `SETTLE_MS`).
   */
  private async committed(xid: string, pid: number | null): Promise<boolean | null> {
    const client = await newClient(this.url, this.options);
    try {
      const deadline = performance.now() + SETTLE_MS;
      let ended = false;
      for (;;) {
        const { rows } = await client.query<{ status: string | null }>('SELECT pg_xact_status($1::xid8) AS status', [xid]);
        const status = rows[0]?.status ?? null;
        if (status === 'committed') return true;
        if (status === 'aborted') return false;
        if (status !== 'in progress' || performance.now() > deadline) return null;
        if (!ended && pid !== null) {
          // Only the session still running this very transaction (its 32-bit id: the low half of the xid8).
          await client.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE pid = $1 AND backend_xid::text = (($2::text)::numeric % 4294967296)::text`,
            [pid, xid],
          );
          ended = true;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private drop(client: pg.Client): void {
    if (this.writer === client) this.writer = null;
    void client.end().catch(() => undefined);
  }
}

/** The writers' lock could not be had in time (another instance holds it too long): a retryable failure. */
export class WriteLockTimeoutError extends StoreUnavailableError {
  constructor(cause: unknown) {
    super('the ledger is busy: the write lock could not be taken in time; retry', { cause });
    this.name = 'WriteLockTimeoutError';
  }
}

/** How long a lost COMMIT's outcome is waited for while its transaction is still in progress. */
const SETTLE_MS = 5_000;

export const READ_STREAMS = 'SELECT * FROM events WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, stream_position';
const READ_VERSIONS = 'SELECT stream_id, max(stream_position) AS v FROM events WHERE stream_id = ANY($1::text[]) GROUP BY stream_id';

/**
 * A statement without parameters sent with the extended protocol, as the others are: node-postgres writes
 * a simple query at once, outside the cork that gathers a flight into one write (see pg-database.ts).
 */
const extended = (text: string): pg.QueryConfig => ({ text, queryMode: 'extended' }) as pg.QueryConfig & { queryMode: 'extended' };

function settleAll(batch: readonly Pending[], outcomes: readonly { ok: boolean; value: unknown }[]): void {
  batch.forEach((unit, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) unit.resolve(outcome.value);
    else unit.reject(outcome.value);
  });
}

/** The batch's streams as read under the lock, with what the batch's units appended so far. */
class PipelinedView implements BatchView {
  /** Every stream read, whole (empty when it has no events). */
  private readonly histories = new Map<string, StoredLedgerEvent[]>();
  /** The versions of the streams only their versions were asked of. */
  private readonly versions = new Map<string, number>();
  private unit: PlannedUnit<unknown> | null = null;
  private mine: StoredLedgerEvent[] = [];
  private lastBeforeUnit: number;

  constructor(
    public last: number,
    streams: readonly string[],
    events: readonly StoredLedgerEvent[],
    versions: readonly { stream_id: string; v: number }[],
  ) {
    this.lastBeforeUnit = last;
    for (const id of streams) this.histories.set(id, []);
    for (const stored of events) this.histories.get(stored.streamId)?.push(stored);
    for (const { stream_id, v } of versions) this.versions.set(stream_id, v);
  }

  /** More streams read (and versions), before any unit was decided. */
  addRead(streams: readonly string[], events: readonly StoredLedgerEvent[], versions: readonly { stream_id: string; v: number }[]): void {
    for (const id of streams) this.histories.set(id, []);
    for (const stored of events) this.histories.get(stored.streamId)?.push(stored);
    for (const { stream_id, v } of versions) this.versions.set(stream_id, v);
  }

  /** Tells `seen` the versions read under the lock. */
  reportVersions(seen: SeenVersions): void {
    for (const [id, history] of this.histories) seen.set(id, history.length);
    for (const [id, version] of this.versions) seen.set(id, version);
  }

  startUnit(unit: PlannedUnit<unknown>): void {
    this.unit = unit;
    this.mine = [];
    this.lastBeforeUnit = this.last;
  }

  endUnit(): StoredLedgerEvent[] {
    for (const stored of this.mine) {
      const history = this.histories.get(stored.streamId);
      if (history) history.push(stored);
      else this.versions.set(stored.streamId, stored.streamPosition);
    }
    this.unit = null;
    return this.mine;
  }

  dropUnit(): void {
    this.unit = null;
    this.mine = [];
    this.last = this.lastBeforeUnit;
  }

  history(streamId: string): readonly StoredLedgerEvent[] {
    if (!this.unit?.streams.includes(streamId)) throw new Error(`a planned unit read stream ${streamId} it did not name`);
    const committed = this.histories.get(streamId) ?? [];
    const own = this.mine.filter((stored) => stored.streamId === streamId);
    return own.length > 0 ? [...committed, ...own] : committed;
  }

  version(streamId: string): number {
    if (!this.unit?.streams.includes(streamId) && !this.unit?.versions.includes(streamId)) {
      throw new Error(`a planned unit asked the version of stream ${streamId} it did not name`);
    }
    const own = this.mine.filter((stored) => stored.streamId === streamId);
    if (own.length > 0) return own[own.length - 1]!.streamPosition;
    // A stream whose id PostgreSQL cannot hold (U+0000) was not read: it has no events.
    return this.histories.get(streamId)?.length ?? this.versions.get(streamId) ?? 0;
  }

  append(stored: readonly StoredLedgerEvent[]): void {
    for (const event of stored) {
      if (event.globalPosition !== this.last + 1) throw new Error(`an append at global position ${event.globalPosition} after ${this.last}`);
      if (event.streamPosition !== this.version(event.streamId) + 1) throw new Error(`an append to ${event.streamId} at ${event.streamPosition} out of order`);
      this.mine.push(event);
      this.last = event.globalPosition;
    }
  }
}

/** Streams (and versions) read for units that joined a batch, with the stream ids they were asked for. */
interface MoreRead {
  readonly streams: readonly string[];
  readonly events: readonly StoredLedgerEvent[];
  readonly versions: readonly { stream_id: string; v: number }[];
}

/**
 * Units joining a pipelined batch after its first flight: each is added to the batch at once (settled with
 * it, whatever happens), and the reads it needs that the batch has not made (its streams, versions and
 * guessed rows) are sent on the writer connection, gathered per turn of the event loop. Sent before the
 * lock's answer is in, they run behind the lock's statement, once it is granted: no flight of their own.
 */
class Joining {
  private waiting: PlannedUnit<unknown>[] = [];
  private readonly sent: Promise<MoreRead>[] = [];
  private scheduled = false;

  constructor(
    private readonly runner: PgGroupCommitRunner,
    private readonly client: pg.Client,
    private readonly batch: Pending[],
    private readonly units: PlannedUnit<unknown>[],
    private readonly streams: Set<string>,
    private readonly versioned: Set<string>,
    private readonly prefetched: Promise<{ table: PgProjectionTable; rows: Map<string, Row | null> }>[],
    private readonly failed: { prefetch: boolean },
  ) {}

  get size(): number {
    return this.batch.length;
  }

  join(pending: Pending): void {
    this.batch.push(pending);
    this.units.push(pending.planned!);
    this.waiting.push(pending.planned!);
  }

  /** Sends the waiting units' reads after this turn of the event loop (several units' in one statement each). */
  sendSoon(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  /** Sends the waiting units' reads now. */
  send(): void {
    const units = this.waiting.splice(0);
    if (units.length === 0) return;
    const more = [...new Set(units.flatMap((unit) => unit.streams))].filter((id) => !holdsNul([id]) && !this.streams.has(id));
    for (const id of more) this.streams.add(id);
    const moreVersioned = [...new Set(units.flatMap((unit) => unit.versions))].filter((id) => !holdsNul([id]) && !this.streams.has(id) && !this.versioned.has(id));
    for (const id of moreVersioned) this.versioned.add(id);
    const reads = Promise.all([
      this.client.query<EventRow>({ name: 'ledger_batch_streams', text: READ_STREAMS, values: [more] }),
      this.client.query<{ stream_id: string; v: number }>({ name: 'ledger_batch_versions', text: READ_VERSIONS, values: [moreVersioned] }),
    ]).then(([read, versions]) => ({ streams: more, events: read.rows.map(toStoredEvent), versions: versions.rows }));
    reads.catch(() => undefined);
    this.sent.push(reads);
    // After the reads, as in the first flight: a failed guess then surfaces where `failed` is known.
    this.prefetched.push(...this.runner.prefetch(this.client, units, this.failed));
  }

  /** The reads sent so far and not yet taken. */
  reads(): Promise<MoreRead[]> {
    return Promise.all(this.sent.splice(0));
  }
}

function translateLockTimeout(error: unknown): unknown {
  return sqlState(error) === '55P03' ? new WriteLockTimeoutError(error) : error;
}

/** The view a unit is planned on to guess the rows it touches: its streams empty, appends taken as they come. */
class GuessView implements BatchView {
  readonly appended: StoredLedgerEvent[] = [];
  last = 0;
  private readonly histories = new Map<string, readonly StoredLedgerEvent[]>();

  constructor(
    private readonly seen: SeenVersions,
    private readonly read: ReadAhead,
  ) {}

  /** The stream as the command read it before it was queued (process reads its account), else empty; with the guess's appends. */
  history(streamId: string): readonly StoredLedgerEvent[] {
    let history = this.histories.get(streamId);
    if (!history) this.histories.set(streamId, (history = this.read.take(streamId) ?? []));
    const own = this.appended.filter((stored) => stored.streamId === streamId);
    return own.length > 0 ? [...history, ...own] : history;
  }

  /** The guess's own appends, else the stream as read ahead, else the version last seen (a guard's stream, which rarely moves), else 0. */
  version(streamId: string): number {
    let version = this.histories.get(streamId)?.length ?? this.seen.get(streamId) ?? 0;
    for (const stored of this.appended) if (stored.streamId === streamId) version = stored.streamPosition;
    return version;
  }

  append(stored: readonly StoredLedgerEvent[]): void {
    this.appended.push(...stored);
    if (stored.length > 0) this.last = stored[stored.length - 1]!.globalPosition;
  }
}

/** The prefetched rows by table, `into` (several loads of one table merged). */
async function preloadedRows(
  loads: readonly Promise<{ table: PgProjectionTable; rows: Map<string, Row | null> }>[],
  into = new Map<PgProjectionTable, Map<string, Row | null>>(),
): Promise<Map<PgProjectionTable, Map<string, Row | null>>> {
  for (const { table, rows } of await Promise.all(loads)) {
    const had = into.get(table);
    if (!had) into.set(table, rows);
    else for (const [id, row] of rows) had.set(id, row);
  }
  return into;
}

/** Stream versions, the most recently seen kept (at most `capacity`). */
class SeenVersions {
  private readonly versions = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  get(streamId: string): number | undefined {
    return this.versions.get(streamId);
  }

  set(streamId: string, version: number): void {
    this.versions.delete(streamId);
    this.versions.set(streamId, version);
    if (this.versions.size > this.capacity) this.versions.delete(this.versions.keys().next().value!);
  }
}

/**
 * Streams read outside the writers' lock, kept until a guess takes them (at most `capacity` streams of at
 * most `longest` events: a guess is a hint, never worth holding a long stream in memory).
 */
export class ReadAhead {
  private readonly streams = new Map<string, readonly StoredLedgerEvent[]>();

  constructor(
    private readonly capacity: number,
    private readonly longest: number,
  ) {}

  remember(streamId: string, events: readonly StoredLedgerEvent[]): void {
    if (events.length > this.longest) return;
    this.streams.delete(streamId);
    this.streams.set(streamId, events);
    if (this.streams.size > this.capacity) this.streams.delete(this.streams.keys().next().value!);
  }

  take(streamId: string): readonly StoredLedgerEvent[] | undefined {
    const events = this.streams.get(streamId);
    this.streams.delete(streamId);
    return events;
  }
}
