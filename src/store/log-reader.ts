import Database from 'better-sqlite3';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { StoredEvent } from '../../events/envelope.js';
import { parseLedgerEvent, type LedgerEvent } from '../../events/registry.js';
import { packageRoot } from '../package-root.js';
import { mergeParsedEventData, ReplayedEvent, toReplayedEvent, type EventRow } from './event-stream.js';

/**
 * One snapshot of the log, read in global order in batches: what a
 * projection rebuild replays. `through` is the last position of the snapshot.
 */
export interface LogSnapshotReader {
  readonly through: number;
  /** Events of the requested types in the snapshot. */
  readonly total: number;
  /** The next events (at most about `batchSize`), or null at the end. */
  next(): StoredEvent<LedgerEvent>[] | null;
  close(): void;
}

export interface LogReaderOptions {
  /** Event types to read (the handled types of the projections being rebuilt). */
  readonly types: readonly string[];
  /** Read the bulk fields too (a projection reads them); else they read as `{}`. */
  readonly withBulk: boolean;
  readonly batchSize?: number;
  /**
   * Read in a worker thread (the default from `workerFromEvents` events on):
   * SQLite reads and serialises the next batches on the second core while this
   * thread applies the current one.
   */
  readonly inWorker?: boolean;
  readonly workerFromEvents?: number;
}

const COLUMNS = 'global_position, stream_id, stream_position, type, schema_version, data, metadata, recorded_at';

/**
 * Opens a reader on the log of `sqlite`'s database file. It reads through a
 * connection of its own, with its own snapshot; `sqlite` is only asked how
 * long the log is, to choose between reading inline and in a worker.
 */
export function openLogReader(sqlite: Database.Database, options: LogReaderOptions): LogSnapshotReader {
  const inWorker =
    options.inWorker ??
    ((sqlite.prepare('SELECT MAX(global_position) AS p FROM events').get() as { p: number | null }).p ?? 0) >= (options.workerFromEvents ?? 50_000);
  return inWorker ? new WorkerLogReader(sqlite.name, options) : new InlineLogReader(sqlite.name, options);
}

/** Reads on a second connection in this thread: for small logs, where starting a worker costs more than it saves. */
class InlineLogReader implements LogSnapshotReader {
  readonly through: number;
  readonly total: number;
  private readonly reader: Database.Database;
  private readonly rows: IterableIterator<EventRow>;
  private readonly batchSize: number;

  constructor(file: string, options: LogReaderOptions) {
    this.batchSize = options.batchSize ?? 2_000;
    this.reader = new Database(file, { readonly: true, fileMustExist: true });
    this.reader.exec('BEGIN'); // one snapshot for the whole read
    const types = options.types;
    const list = types.map(() => '?').join(', ');
    this.through = (this.reader.prepare('SELECT MAX(global_position) AS p FROM events').get() as { p: number | null }).p ?? 0;
    this.total = types.length === 0 ? 0 : (this.reader.prepare(`SELECT COUNT(*) AS n FROM events WHERE type IN (${list})`).get(...types) as { n: number }).n;
    this.rows =
      types.length === 0
        ? [][Symbol.iterator]()
        : this.reader
            .prepare<unknown[], EventRow>(`SELECT ${options.withBulk ? `${COLUMNS}, bulk` : COLUMNS} FROM events WHERE +type IN (${list}) ORDER BY global_position`)
            .iterate(...types);
  }

  next(): StoredEvent<LedgerEvent>[] | null {
    const events: StoredEvent<LedgerEvent>[] = [];
    for (let next = this.rows.next(); !next.done; next = this.rows.next()) {
      events.push(toReplayedEvent(next.value));
      if (events.length >= this.batchSize) break;
    }
    return events.length === 0 ? null : events;
  }

  close(): void {
    this.rows.return?.(); // ends an iteration cut short (an error), which would keep the connection busy
    if (this.reader.open) this.reader.close();
  }
}

type WorkerMessage =
  | { kind: 'snapshot'; through: number; total: number }
  | { kind: 'batch'; events: string }
  | { kind: 'end' }
  | { kind: 'error'; message: string };

/** A batch row as the worker's SQL serialises it. */
type BatchRow = [number, string, number, string, number, Record<string, unknown>, Record<string, unknown> | null, string, string];

/** How long the main thread waits for the worker's next message before giving up on it. */
const STALL_MS = 60_000;

/**
 * Reads in a worker thread (log-reader.worker.js). The worker posts batches
 * through a MessageChannel and counts them in shared memory; this thread
 * takes them synchronously (`receiveMessageOnPort`, `Atomics.wait`), so a
 * rebuild stays one synchronous loop, and reports each one it consumed, so
 * the worker never runs more than a few batches ahead.
 */
class WorkerLogReader implements LogSnapshotReader {
  readonly through: number;
  readonly total: number;
  private readonly worker: Worker;
  private readonly port: MessageChannel['port1'];
  private readonly counters: Int32Array;
  private received = 0;
  private ended = false;
  private readonly withBulk: boolean;

  constructor(file: string, options: LogReaderOptions) {
    this.withBulk = options.withBulk;
    const channel = new MessageChannel();
    const shared = new SharedArrayBuffer(8);
    this.counters = new Int32Array(shared);
    this.port = channel.port1;
    this.worker = new Worker(join(packageRoot, 'src/store/log-reader.worker.js'), {
      workerData: {
        file,
        types: options.types,
        withBulk: options.withBulk,
        batchSize: options.batchSize ?? 2_000,
        maxAhead: 2,
        shared,
        port: channel.port2,
      },
      transferList: [channel.port2],
      // Its heap only ever holds a few batch texts: a small one keeps the rebuild's peak memory down.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
    });
    try {
      const first = this.receive();
      if (first.kind !== 'snapshot') throw new Error(`log reader: expected the snapshot, got ${first.kind}`);
      this.through = first.through;
      this.total = first.total;
    } catch (error) {
      this.close();
      throw error;
    }
  }

  next(): StoredEvent<LedgerEvent>[] | null {
    if (this.ended) return null;
    const message = this.receive();
    if (message.kind === 'end') {
      this.ended = true;
      return null;
    }
    if (message.kind !== 'batch') throw new Error(`log reader: unexpected ${message.kind}`);
    const rows = JSON.parse(message.events) as BatchRow[];
    Atomics.add(this.counters, 1, 1);
    Atomics.notify(this.counters, 1);
    return rows.map(this.withBulk ? (row) => toBatchEvent(row, row[6]) : (row) => toBatchEvent(row, undefined));
  }

  close(): void {
    this.ended = true;
    this.port.close();
    void this.worker.terminate();
  }

  private receive(): WorkerMessage {
    const started = Date.now();
    for (;;) {
      const received = receiveMessageOnPort(this.port);
      if (received) {
        this.received++;
        const message = received.message as WorkerMessage;
        if (message.kind === 'error') throw new Error(`reading the event log: ${message.message}`);
        return message;
      }
      const posted = Atomics.load(this.counters, 0);
      if (posted > this.received) continue; // posted just now: the message is in the port
      if (Date.now() - started > STALL_MS) throw new Error(`reading the event log: the reader thread sent nothing for ${STALL_MS / 1000} s`);
      Atomics.wait(this.counters, 0, posted, 1_000);
    }
  }
}

/** `bulk` is undefined when the worker did not select the column (see `mergeEventData`). */
function toBatchEvent(
  [globalPosition, streamId, streamPosition, type, schemaVersion, data, , metadata, recordedAt]: BatchRow,
  bulk: Record<string, unknown> | null | undefined,
): StoredEvent<LedgerEvent> {
  const event = parseLedgerEvent(type, schemaVersion, mergeParsedEventData(type, data, bulk));
  return new ReplayedEvent(globalPosition, streamId, streamPosition, event, metadata, recordedAt);
}
