import { randomUUID } from 'node:crypto';
import { type MessagePort, Worker } from 'node:worker_threads';
import { inlineProjections } from '../../../projections/index.js';
import type { LedgerEvent } from '../../../events/registry.js';
import type { AnyDecider } from '../../domain/decider.js';
import { DomainError } from '../../domain/errors.js';
import {
  ConcurrencyError,
  StoreUnavailableError,
  UniqueConstraintError,
  type BeforeCommit,
  type HandleOptions,
  type HandleResult,
  type StoredLedgerEvent,
  type StreamCommand,
  type WriteOptions,
} from '../event-store.js';
import type {
  AnswerRebuilder,
  ExistingReservation,
  HeldReservation,
  IdempotencyRecord,
  IdempotencyRecords,
  IdempotentRequest,
  RecordedAnswer,
  ReserveOptions,
  StoredResponse,
} from '../idempotency.js';
import { threadModule } from '../../thread-module.js';
import { openDatabase } from './database.js';
import { GroupCommitRunner } from './group-commit.js';
import { SqliteIdempotencyRecords } from './idempotency-records.js';
import { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite-event-store.js';

/**
 * The SQLite writer in a worker thread: the thread owns the write connection and its group commit, so a
 * batch's work never holds up the service's event loop; reads stay on the service's connection. A command
 * crosses with its decider's name (a function does not cross), a keyed request with the number of the
 * reservation the thread holds; errors come back as the same class. A counter in shared memory says whether
 * a committed batch still waits for its sync (`durable`).
 */

/** What the thread is started with (`workerData`). */
export interface WriterThreadData {
  readonly file: string;
  readonly maxBatch?: number;
  readonly reportBatches: boolean;
  /** [batches committed and not yet durable] */
  readonly unsynced: SharedArrayBuffer;
  /** The service's clock as at its latest call (ms since the epoch), when it is not the real one (a test's). */
  readonly clock?: SharedArrayBuffer;
}

/** What the thread needs that only the composition root knows. */
export interface WriterThreadParts {
  readonly deciders: Readonly<Record<string, AnyDecider>>;
  readonly rebuildAnswer: AnswerRebuilder;
}

interface WireCommand {
  readonly streamId: string;
  readonly decider: string;
  readonly command: unknown;
}

interface WireWrite {
  readonly metadata: WriteOptions['metadata'];
  readonly guards?: HandleOptions['guards'];
  readonly dryRun?: boolean;
  /** The reservation whose hook runs in the unit (a keyed request's). */
  readonly claim?: number;
}

type Request =
  | { readonly op: 'handleMany'; readonly commands: readonly WireCommand[]; readonly write: WireWrite }
  | { readonly op: 'append'; readonly streamId: string; readonly expectedVersion: number; readonly events: readonly LedgerEvent[]; readonly write: WireWrite }
  | { readonly op: 'reserve'; readonly request: IdempotentRequest; readonly options?: ReserveOptions }
  | { readonly op: 'find'; readonly keyId: string; readonly idempotencyKey: string }
  | { readonly op: 'complete'; readonly request: IdempotentRequest; readonly response: StoredResponse }
  | { readonly op: 'held'; readonly claim: number; readonly action: 'complete' | 'keepRecorded' | 'release'; readonly response?: StoredResponse }
  | { readonly op: 'purge' }
  | { readonly op: 'autocheckpoint'; readonly pages: number }
  | { readonly op: 'durable' }
  | { readonly op: 'close' };

interface WireError {
  readonly name: string;
  readonly message: string;
  readonly code?: unknown;
  readonly errors?: DomainError['errors'];
  readonly extra?: DomainError['extra'];
  readonly streamId?: string;
  readonly expectedVersion?: number;
  readonly actualVersion?: number;
  /** What caused it (a failed sync's I/O error tells the store's fault). */
  readonly cause?: WireError;
}

type Reply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'reply'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly kind: 'reply'; readonly id: number; readonly ok: false; readonly error: WireError }
  | { readonly kind: 'batch'; readonly units: number; readonly ms: number }
  | { readonly kind: 'committed' }
  | { readonly kind: 'opening-failed'; readonly error: WireError };

function toWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const fields = error as Error & Partial<WireError>;
  return {
    name: error.name,
    message: error.message,
    code: fields.code,
    ...(error instanceof DomainError ? { errors: error.errors, extra: error.extra } : {}),
    ...(error instanceof ConcurrencyError ? { streamId: error.streamId, expectedVersion: error.expectedVersion, actualVersion: error.actualVersion } : {}),
    ...(error.cause === undefined ? {} : { cause: toWire(error.cause) }),
  };
}

function fromWire(wire: WireError): Error {
  const error = rebuilt(wire);
  if (wire.cause) Object.defineProperty(error, 'cause', { value: fromWire(wire.cause), configurable: true, writable: true });
  return error;
}

function rebuilt(wire: WireError): Error {
  switch (wire.name) {
    case 'DomainError':
      return new DomainError(wire.code as DomainError['code'], wire.message, { errors: wire.errors ?? [], extra: wire.extra ?? {} });
    case 'ConcurrencyError':
      return new ConcurrencyError(wire.streamId!, wire.expectedVersion!, wire.actualVersion!);
    case 'UniqueConstraintError':
      return new UniqueConstraintError(wire.message);
    case 'StoreUnavailableError':
      return new StoreUnavailableError(wire.message);
    default:
      return Object.assign(new Error(wire.message), { name: wire.name, ...(wire.code === undefined ? {} : { code: wire.code }) });
  }
}

/** The thread's side: opens the write connection and serves the service's writes until told to close. */
export function serveWriter(port: MessagePort, data: WriterThreadData, parts: WriterThreadParts): void {
  let opened;
  try {
    opened = openDatabase(data.file);
  } catch (error) {
    port.postMessage({ kind: 'opening-failed', error: toWire(error) } satisfies Reply);
    return;
  }
  const database = opened;
  const told = data.clock ? new Float64Array(data.clock) : null;
  const clock = told ? () => new Date(told[0]!) : () => new Date();
  const runner = new GroupCommitRunner(database.sqlite, {
    maxBatch: data.maxBatch,
    walFile: `${database.file}-wal`,
    unsynced: new Int32Array(data.unsynced),
    gatherDuringSync: true,
    ...(data.reportBatches ? { onBatch: (units: number, ms: number) => port.postMessage({ kind: 'batch', units, ms } satisfies Reply) } : {}),
  });
  runner.onCommitted(() => port.postMessage({ kind: 'committed' } satisfies Reply));
  const store = new SqliteEventStore({ sqlite: database.sqlite, projections: inlineProjections, clock, newId: randomUUID, runner });
  const records = new SqliteIdempotencyRecords(database.sqlite, runner, clock, parts.rebuildAnswer);
  const held = new Map<number, HeldReservation>();
  let nextClaim = 1;

  const options = (write: WireWrite): HandleOptions => {
    const reservation = write.claim === undefined ? undefined : held.get(write.claim);
    if (write.claim !== undefined && !reservation) throw new Error(`reservation ${write.claim} is not held`);
    return {
      metadata: write.metadata,
      ...(write.guards ? { guards: write.guards } : {}),
      ...(write.dryRun ? { dryRun: true } : {}),
      ...(reservation ? { beforeCommit: reservation.beforeCommit } : {}),
    };
  };
  const answerOf = (write: WireWrite): RecordedAnswer => (write.claim === undefined ? undefined : held.get(write.claim)?.recordedAnswer());

  async function run(request: Request): Promise<unknown> {
    switch (request.op) {
      case 'handleMany': {
        const commands = request.commands.map(({ streamId, decider, command }) => {
          const found = parts.deciders[decider];
          if (!found) throw new Error(`no decider named ${decider}`);
          return { streamId, decider: found, command };
        });
        const results = await store.handleMany(commands, options(request.write));
        return { results, answer: answerOf(request.write) };
      }
      case 'append': {
        const events = await store.appendToStream(request.streamId, request.expectedVersion, request.events, options(request.write));
        return { events, answer: answerOf(request.write) };
      }
      case 'reserve': {
        const reservation = await records.reserve(request.request, request.options);
        if (!reservation.held) return reservation;
        const claim = nextClaim++;
        held.set(claim, reservation);
        return { held: true, reservedAt: reservation.reservedAt, claim };
      }
      case 'find':
        return records.find(request.keyId, request.idempotencyKey);
      case 'complete':
        return records.complete(request.request, request.response);
      case 'held': {
        const reservation = held.get(request.claim);
        held.delete(request.claim);
        if (!reservation) return undefined;
        if (request.action === 'complete') return reservation.complete(request.response!);
        return request.action === 'release' ? reservation.release() : reservation.keepRecorded();
      }
      case 'purge':
        return records.purgeExpired();
      case 'autocheckpoint':
        database.sqlite.pragma(`wal_autocheckpoint = ${Math.max(0, Math.trunc(request.pages))}`);
        return undefined;
      case 'durable':
        return runner.durable();
      case 'close':
        await runner.close();
        database.close();
        return undefined;
    }
  }

  port.on('message', ({ id, request }: { id: number; request: Request }) => {
    run(request).then(
      (value) => port.postMessage({ kind: 'reply', id, ok: true, value } satisfies Reply),
      (error: unknown) => port.postMessage({ kind: 'reply', id, ok: false, error: toWire(error) } satisfies Reply),
    );
  });
  port.postMessage({ kind: 'ready' } satisfies Reply);
}

export interface WriterThreadOptions {
  readonly maxBatch?: number;
  readonly onBatch?: (units: number, ms: number) => void;
  /** A clock other than the real one (a test's): the thread reads the time it told at each call. */
  readonly clock?: () => Date;
}

/** The service's side of the writer thread: started once per ledger, closed with it. */
export class WriterThread {
  private readonly calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private stopped: Error | null = null;
  private readonly unsynced: Int32Array;
  private readonly told: Float64Array | null;
  private readonly committedListeners = new Set<() => void>();
  /** The reservations of keyed requests, by the hook each hands its writes. */
  readonly claims = new WeakMap<BeforeCommit, ThreadReservation>();

  private constructor(
    private readonly worker: Worker,
    data: WriterThreadData,
    private readonly options: WriterThreadOptions,
  ) {
    this.unsynced = new Int32Array(data.unsynced);
    this.told = data.clock ? new Float64Array(data.clock) : null;
    worker.on('message', (message: Reply) => this.heard(message));
    worker.on('error', (error) => this.stop(new StoreUnavailableError(`the SQLite writer thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => this.stop(new StoreUnavailableError(`the SQLite writer thread stopped (exit code ${code})`)));
  }

  /** Starts the thread on `file` (migrated by the caller) and resolves once it holds its connection. */
  static async start(entry: URL, file: string, options: WriterThreadOptions): Promise<WriterThread> {
    const data: WriterThreadData = {
      file,
      reportBatches: options.onBatch !== undefined,
      unsynced: new SharedArrayBuffer(4),
      ...(options.clock ? { clock: new SharedArrayBuffer(8) } : {}),
      ...(options.maxBatch ? { maxBatch: options.maxBatch } : {}),
    };
    // The time the thread opens at: its Idempotency-Key records tell a reservation a stopped process left by it.
    if (data.clock) new Float64Array(data.clock)[0] = options.clock!().getTime();
    const worker = new Worker(await threadModule(entry), { workerData: data });
    const thread = new WriterThread(worker, data, options);
    await new Promise<void>((resolve, reject) => {
      const first = (message: Reply) => {
        worker.off('message', first);
        worker.off('error', reject);
        if (message.kind === 'ready') resolve();
        else reject(message.kind === 'opening-failed' ? fromWire(message.error) : new Error(`unexpected first message ${message.kind}`));
      };
      worker.on('message', first);
      worker.on('error', reject);
    });
    return thread;
  }

  call<T>(request: Request): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    if (this.told) this.told[0] = this.options.clock!().getTime();
    return new Promise<T>((resolve, reject) => {
      this.calls.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, request });
    });
  }

  /** Whether the thread still serves writes (one that stopped takes the instance out of service). */
  get running(): boolean {
    return this.stopped === null;
  }

  onCommitted(listener: () => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /** The thread's connection checkpoints by itself every `pages` pages of WAL (0: never; the checkpointer thread does). */
  autoCheckpoint(pages: number): void {
    this.call({ op: 'autocheckpoint', pages }).catch(() => undefined);
  }

  /** At once when no committed batch waits for its sync, else when the thread says it is on disk (or refuses: a failed sync). */
  durable(): Promise<void> {
    if (Atomics.load(this.unsynced, 0) === 0) return Promise.resolve();
    return this.call<void>({ op: 'durable' });
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    await this.call({ op: 'close' }).catch(() => undefined);
    await this.worker.terminate();
  }

  private heard(message: Reply): void {
    switch (message.kind) {
      case 'reply': {
        const call = this.calls.get(message.id);
        this.calls.delete(message.id);
        if (message.ok) call?.resolve(message.value);
        else call?.reject(fromWire(message.error));
        return;
      }
      case 'batch':
        this.options.onBatch?.(message.units, message.ms);
        return;
      case 'committed':
        for (const listener of [...this.committedListeners]) listener();
        return;
      default:
        return;
    }
  }

  private stop(error: Error): void {
    this.stopped ??= error;
    for (const call of this.calls.values()) call.reject(this.stopped);
    this.calls.clear();
  }
}

/** A keyed request's reservation, held in the thread: its hook stands for it in a write's options. */
class ThreadReservation implements HeldReservation {
  readonly held = true;
  private answer: RecordedAnswer;
  readonly beforeCommit: BeforeCommit = () => {
    throw new Error('a reservation held by the writer thread runs its hook there');
  };

  constructor(
    private readonly thread: WriterThread,
    readonly claim: number,
    readonly reservedAt: string,
  ) {
    thread.claims.set(this.beforeCommit, this);
  }

  noteAnswer(answer: RecordedAnswer): void {
    if (answer !== undefined) this.answer = answer;
  }

  recordedAnswer(): RecordedAnswer {
    return this.answer;
  }

  complete(response: StoredResponse): Promise<void> {
    return this.thread.call({ op: 'held', claim: this.claim, action: 'complete', response });
  }

  keepRecorded(): Promise<void> {
    return this.thread.call({ op: 'held', claim: this.claim, action: 'keepRecorded' });
  }

  release(): Promise<void> {
    return this.thread.call({ op: 'held', claim: this.claim, action: 'release' });
  }
}

/** The write options as they cross: a hook must be a reservation the thread holds. */
function wireWrite(thread: WriterThread, options: HandleOptions): { write: WireWrite; reservation: ThreadReservation | undefined } {
  const reservation = options.beforeCommit ? thread.claims.get(options.beforeCommit) : undefined;
  if (options.beforeCommit && !reservation) throw new Error('only an Idempotency-Key reservation of the writer thread can hook into its writes');
  return {
    write: {
      metadata: options.metadata,
      ...(options.guards ? { guards: options.guards } : {}),
      ...(options.dryRun ? { dryRun: true } : {}),
      ...(reservation ? { claim: reservation.claim } : {}),
    },
    reservation,
  };
}

/** The event store whose writes run in the thread; its reads are the service's connection's. */
export class ThreadedEventStore extends SqliteEventStore {
  constructor(
    private readonly thread: WriterThread,
    private readonly deciderName: (decider: AnyDecider) => string,
    options: SqliteEventStoreOptions,
  ) {
    super(options);
  }

  override async appendToStream(streamId: string, expectedVersion: number, events: readonly LedgerEvent[], options: WriteOptions): Promise<readonly StoredLedgerEvent[]> {
    const { write, reservation } = wireWrite(this.thread, options);
    const reply = await this.thread.call<{ events: StoredLedgerEvent[]; answer: RecordedAnswer }>({ op: 'append', streamId, expectedVersion, events, write });
    reservation?.noteAnswer(reply.answer);
    return reply.events;
  }

  override async handleMany<C, Ei extends LedgerEvent, Eo extends Ei, S>(commands: readonly StreamCommand<C, Ei, Eo, S>[], options: HandleOptions): Promise<HandleResult<Eo, S>[]> {
    const { write, reservation } = wireWrite(this.thread, options);
    const wire = commands.map(({ streamId, decider, command }) => ({ streamId, decider: this.deciderName(decider), command }));
    const reply = await this.thread.call<{ results: HandleResult<Eo, S>[]; answer: RecordedAnswer }>({ op: 'handleMany', commands: wire, write });
    reservation?.noteAnswer(reply.answer);
    return reply.results;
  }
}

/** The Idempotency-Key records kept by the thread (their claims are in its memory, their writes in its units). */
export class ThreadedIdempotencyRecords implements IdempotencyRecords {
  constructor(private readonly thread: WriterThread) {}

  find(keyId: string, idempotencyKey: string): Promise<IdempotencyRecord | null> {
    return this.thread.call({ op: 'find', keyId, idempotencyKey });
  }

  async reserve(request: IdempotentRequest, options?: ReserveOptions): Promise<HeldReservation | ExistingReservation> {
    const reply = await this.thread.call<ExistingReservation | { held: true; reservedAt: string; claim: number }>({ op: 'reserve', request, ...(options ? { options } : {}) });
    return reply.held ? new ThreadReservation(this.thread, reply.claim, reply.reservedAt) : reply;
  }

  complete(request: IdempotentRequest, response: StoredResponse): Promise<void> {
    return this.thread.call({ op: 'complete', request, response });
  }

  purgeExpired(): Promise<number> {
    return this.thread.call({ op: 'purge' });
  }
}
