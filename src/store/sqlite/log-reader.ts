import Database from 'better-sqlite3';
import { join } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { parseLedgerEvent } from '../../../events/registry.js';
import { packageRoot } from '../../package-root.js';
import { eventColumns, mergeParsedEventData, ReplayedEvent, toReplayedEvent, type EventRow } from '../event-codec.js';
import { DEFAULT_LOG_BATCH, logSnapshot, pageSnapshot, waitForAppend, type EventLog, type LogReadOptions, type LogSnapshot } from '../event-log.js';
import type { StoredLedgerEvent } from '../event-store.js';

/** How often a live reader looks at the log when no commit of this process woke it (another process may write: the CLI). */
const POLL_MS = 250;

export interface SqliteEventLogOptions {
  /** From this many events in the log on, a whole-log read runs in a worker thread, which reads the next batches meanwhile. */
  readonly workerFromEvents?: number;
}

/** Rows the worker serialises per message (one JSON text each). */
const WORKER_CHUNK = 2_000;

/** The `AND ...` of a read's filters and their values (`+type`: SQLite keeps to the primary key's order). */
function readFilter(types: readonly string[] | undefined, streams: readonly string[] | undefined): { sql: string; values: readonly string[] } {
  let sql = '';
  const values: string[] = [];
  if (types !== undefined) {
    sql += ` AND +type IN (${types.map(() => '?').join(', ')})`;
    values.push(...types);
  }
  if (streams !== undefined) {
    sql += ` AND stream_id IN (${streams.map(() => '?').join(', ')})`;
    values.push(...streams);
  }
  return { sql, values };
}

/**
 * The SQLite log reader: a page (`limit`) is one bounded query on the service's connection; a whole read
 * has its own read-only connection and snapshot, inline for small logs and in a worker thread for big ones.
 */
export class SqliteEventLog implements EventLog {
  private readonly last;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly options: SqliteEventLogOptions = {},
    /** Wake-ups after this process's commits. */
    private readonly onCommitted: (wake: () => void) => () => void = () => () => undefined,
  ) {
    this.last = sqlite.prepare<[], { p: number | null }>('SELECT MAX(global_position) AS p FROM events');
  }

  waitForAppend(after: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return waitForAppend(() => this.lastPosition(), this.onCommitted, POLL_MS, after, timeoutMs, signal);
  }

  async lastPosition(): Promise<number> {
    return this.last.get()?.p ?? 0;
  }

  async open(options: LogReadOptions = {}): Promise<LogSnapshot> {
    if (options.types?.length === 0 || options.streams?.length === 0) return emptySnapshot(options.through ?? 0);
    const limit = options.limit;
    if (limit !== undefined) {
      return pageSnapshot(options, limit, await this.lastPosition(), ({ after, through, columns }, streams) => {
        const filter = readFilter(options.types, streams);
        return this.sqlite
          .prepare<unknown[], EventRow>(
            `SELECT ${columns} FROM events
              WHERE global_position > ? AND global_position <= ?${filter.sql} ORDER BY global_position LIMIT ?`,
          )
          .all(after, through, ...filter.values, limit);
      });
    }
    // A read of a few streams is small, whatever the log's length: no worker for it.
    const inWorker = options.streams === undefined && (await this.lastPosition()) >= (this.options.workerFromEvents ?? 50_000);
    return inWorker ? openWorkerSnapshot(this.sqlite.name, options) : openInlineSnapshot(this.sqlite.name, options);
  }
}

function emptySnapshot(through: number): LogSnapshot {
  return logSnapshot(through, 0, async function* () {});
}

/** Reads on a second connection in this thread: for small logs, where starting a worker costs more than it saves. */
function openInlineSnapshot(file: string, options: LogReadOptions): LogSnapshot {
  const reader = new Database(file, { readonly: true, fileMustExist: true });
  try {
    reader.exec('BEGIN'); // one snapshot for the whole read
    const last = (reader.prepare('SELECT MAX(global_position) AS p FROM events').get() as { p: number | null }).p ?? 0;
    const through = Math.min(options.through ?? last, last);
    const after = options.after ?? 0;
    const filter = readFilter(options.types, options.streams);
    const total = options.count
      ? (
          reader
            .prepare(`SELECT COUNT(*) AS n FROM events WHERE global_position > ? AND global_position <= ?${filter.sql.replace('+type', 'type')}`)
            .get(after, through, ...filter.values) as { n: number }
        ).n
      : null;
    const rows = reader
      .prepare<unknown[], EventRow>(
        `SELECT ${eventColumns(options.withBulkFields ?? true)} FROM events
          WHERE global_position > ? AND global_position <= ?${filter.sql} ORDER BY global_position`,
      )
      .iterate(after, through, ...filter.values);
    const size = options.batchSize ?? DEFAULT_LOG_BATCH;
    return logSnapshot(
      through,
      total,
      async function* () {
        let batch: StoredLedgerEvent[] = [];
        for (const row of rows) {
          batch.push(toReplayedEvent(row));
          if (batch.length >= size) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      },
      () => {
        rows.return?.(); // ends an iteration cut short, which would keep the connection busy
        if (reader.open) reader.close();
      },
    );
  } catch (error) {
    if (reader.open) reader.close();
    throw error;
  }
}

type WorkerMessage =
  | { kind: 'snapshot'; through: number; total: number | null }
  | { kind: 'batch'; events: string }
  | { kind: 'end' }
  | { kind: 'error'; message: string };

/** A batch row as the worker's SQL serialises it. */
type BatchRow = [number, string, number, string, number, Record<string, unknown>, Record<string, unknown> | null, string, string];

/** How long to wait for the worker's next message before giving up on it. */
const STALL_MS = 60_000;

/**
 * Reads in a worker thread (log-reader.worker.js), which posts batches of rows serialised by SQLite as one
 * JSON text; this side reports each batch it consumed, so the worker never runs more than a few ahead.
 */
async function openWorkerSnapshot(file: string, options: LogReadOptions): Promise<LogSnapshot> {
  const channel = new MessageChannel();
  const shared = new SharedArrayBuffer(8);
  const counters = new Int32Array(shared); // [messages posted, batches consumed]
  const port = channel.port1;
  const withBulk = options.withBulkFields ?? true;
  const size = options.batchSize ?? DEFAULT_LOG_BATCH;
  const worker = new Worker(join(packageRoot(), 'src/store/sqlite/log-reader.worker.js'), {
    workerData: {
      file,
      after: options.after ?? 0,
      through: options.through ?? null,
      types: options.types ?? null,
      streams: options.streams ?? null,
      count: options.count ?? false,
      withBulk,
      batchSize: Math.min(WORKER_CHUNK, size),
      maxAhead: 2,
      shared,
      port: channel.port2,
    },
    transferList: [channel.port2],
    // Its heap only ever holds a few batch texts: a small one keeps the rebuild's peak memory down.
    resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
  });
  const queue: WorkerMessage[] = [];
  let waiting: (() => void) | null = null;
  let failure: Error | null = null;
  const wake = () => {
    const resume = waiting;
    waiting = null;
    resume?.();
  };
  port.on('message', (message: WorkerMessage) => {
    queue.push(message);
    wake();
  });
  worker.on('error', (error) => {
    failure = new Error(`reading the event log: ${error.message}`);
    wake();
  });
  const receive = async (): Promise<WorkerMessage> => {
    for (;;) {
      const message = queue.shift();
      if (message) {
        if (message.kind === 'error') throw new Error(`reading the event log: ${message.message}`);
        return message;
      }
      if (failure) throw failure;
      let timer: NodeJS.Timeout | undefined;
      const stalled = await new Promise<boolean>((resolve) => {
        waiting = () => resolve(false);
        timer = setTimeout(() => resolve(true), STALL_MS);
      });
      clearTimeout(timer);
      if (stalled && queue.length === 0 && !failure) throw new Error(`reading the event log: the reader thread sent nothing for ${STALL_MS / 1000} s`);
    }
  };
  const stop = () => {
    port.close();
    void worker.terminate();
  };
  try {
    const first = await receive();
    if (first.kind !== 'snapshot') throw new Error(`log reader: expected the snapshot, got ${first.kind}`);
    return logSnapshot(
      first.through,
      first.total,
      async function* () {
        let batch: StoredLedgerEvent[] = [];
        for (;;) {
          const message = await receive();
          if (message.kind === 'end') break;
          if (message.kind !== 'batch') throw new Error(`log reader: unexpected ${message.kind}`);
          const rows = JSON.parse(message.events) as BatchRow[];
          Atomics.add(counters, 1, 1);
          Atomics.notify(counters, 1);
          for (const row of rows) {
            batch.push(toBatchEvent(row, withBulk ? row[6] : undefined));
            if (batch.length >= size) {
              yield batch;
              batch = [];
            }
          }
        }
        if (batch.length > 0) yield batch;
      },
      stop,
    );
  } catch (error) {
    stop();
    throw error;
  }
}

/** `bulk` is undefined when the worker did not select the column (see `mergeEventData`). */
function toBatchEvent(
  [globalPosition, streamId, streamPosition, type, schemaVersion, data, , metadata, recordedAt]: BatchRow,
  bulk: Record<string, unknown> | null | undefined,
): StoredLedgerEvent {
  const event = parseLedgerEvent(type, schemaVersion, mergeParsedEventData(type, data, bulk));
  return new ReplayedEvent(globalPosition, streamId, streamPosition, event, metadata, recordedAt);
}
