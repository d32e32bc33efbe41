import type { LedgerEventType } from '../../events/registry.js';
import { eventColumns, toStoredEvent, type EventRow } from './event-codec.js';
import type { StoredLedgerEvent } from './event-store.js';

/** Events a batch of a read holds unless `batchSize` says otherwise. */
export const DEFAULT_LOG_BATCH = 2_000;

export interface LogReadOptions {
  /** Read the events after this global position (default 0: from the start). */
  readonly after?: number;
  /** ...up to this global position, included (default: the end of the log when the read starts). */
  readonly through?: number;
  /** Only events of these types (default: every type). */
  readonly types?: readonly LedgerEventType[];
  /** Only events of these streams (default: every stream), still in global order: an account's history. */
  readonly streams?: readonly string[];
  /** At most this many events in all (a page); the read is then one bounded query. */
  readonly limit?: number;
  /** Read the events' bulk fields (see event-codec.ts); default true, false reads them as `{}`. */
  readonly withBulkFields?: boolean;
  /** About how many events each batch holds. */
  readonly batchSize?: number;
  /** Count the events the read will yield first (`total`): one more pass over the index. */
  readonly count?: boolean;
}

/** One read of the log: a consistent snapshot taken when it was opened, in global order, in batches produced as they are consumed. */
export interface LogSnapshot extends AsyncIterable<readonly StoredLedgerEvent[]> {
  /** The last global position the read covers (the snapshot's end, or `through`). */
  readonly through: number;
  /** How many events the read yields, when `count` was asked; otherwise null. */
  readonly total: number | null;
  /** Ends the read early (a `for await` that breaks closes it too). */
  close(): Promise<void>;
}

/** The log reader (a port). Every position up to `lastPosition` is committed and visible: positions are assigned in commit order. */
export interface EventLog {
  open(options?: LogReadOptions): Promise<LogSnapshot>;
  /** The global position of the last committed event (0 for an empty log). */
  lastPosition(): Promise<number>;
  /** Resolves once the log holds an event after `after`, or after `timeoutMs`, or when `signal` aborts: a wake-up for live readers. */
  waitForAppend(after: number, timeoutMs: number, signal?: AbortSignal): Promise<void>;
}

/** `waitForAppend` for the stores: a wake-up from `subscribe` (a commit of any instance), polling as the fallback. */
export async function waitForAppend(
  lastPosition: () => Promise<number>,
  subscribe: (wake: () => void) => () => void,
  pollMs: number,
  after: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!signal?.aborted && (await lastPosition()) <= after) {
    const left = deadline - Date.now();
    if (left <= 0) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(pollMs, left));
      const unsubscribe = subscribe(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/** A LogSnapshot over a generator of batches: `cleanup` runs once when the read ends, read through, broken off or closed. */
export function logSnapshot(
  through: number,
  total: number | null,
  batches: () => AsyncGenerator<readonly StoredLedgerEvent[]>,
  cleanup: () => void | Promise<void> = () => undefined,
): LogSnapshot {
  let closing: Promise<void> | null = null;
  const close = () => (closing ??= Promise.resolve().then(cleanup));
  const generator = (async function* () {
    try {
      yield* batches();
    } finally {
      await close();
    }
  })();
  return {
    through,
    total,
    [Symbol.asyncIterator]: () => generator,
    close: async () => {
      await generator.return(undefined);
      await close();
    },
  };
}

/**
 * A page (`limit`) for the stores: one bounded `query` (one per stream with `streams`, a range of the
 * (stream_id, global_position) index each, merged in global order), so its cost is bounded by `limit`.
 */
export async function pageSnapshot(
  options: LogReadOptions,
  limit: number,
  last: number,
  query: (range: { after: number; through: number; columns: string }, streams: readonly string[] | undefined) => EventRow[] | Promise<EventRow[]>,
): Promise<LogSnapshot> {
  const range = { after: options.after ?? 0, through: Math.min(options.through ?? last, last), columns: eventColumns(options.withBulkFields ?? true) };
  let rows: EventRow[] = [];
  const streams = options.streams;
  if (range.through > range.after && limit > 0) {
    rows = streams === undefined ? await query(range, undefined) : mergeByPosition(await Promise.all(streams.map((s) => query(range, [s]))), limit);
  }
  const events = rows.map(toStoredEvent);
  const size = options.batchSize ?? DEFAULT_LOG_BATCH;
  return logSnapshot(range.through, options.count ? events.length : null, async function* () {
    for (let i = 0; i < events.length; i += size) yield events.slice(i, i + size);
  });
}

/** The first `limit` rows of lists each in global order, in global order. */
function mergeByPosition(lists: readonly (readonly EventRow[])[], limit: number): EventRow[] {
  if (lists.length === 1) return lists[0]!.slice(0, limit);
  return lists
    .flat()
    .sort((a, b) => a.global_position - b.global_position)
    .slice(0, limit);
}
