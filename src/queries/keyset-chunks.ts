import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { KeysetRange, ListPosition } from './account-list-read-models.js';

/** Rows read per chunk by the lists and the export: a few milliseconds of work each on either store. */
export const DEFAULT_CHUNK_ROWS = 1_000;

export interface KeysetReadOptions {
  readonly range: KeysetRange;
  /** At most this many rows in all (a page); none: to the end of the range. */
  readonly maxRows?: number;
  readonly chunkRows?: number;
}

/**
 * Reads a keyset range chunk by chunk, each one bounded query after the previous chunk's last row: no
 * connection, cursor or transaction is held between chunks, and the event loop is given back before each.
 * The next chunk is asked for as the current one is handed over (two in memory). Not one snapshot: rows never
 * move in the order, so none is read twice or skipped (rows added behind the read are not seen).
 */
export async function* keysetChunks<R extends ListPosition>(
  read: (range: KeysetRange, limit: number) => Promise<R[]>,
  options: KeysetReadOptions,
): AsyncGenerator<R[]> {
  const chunkRows = options.chunkRows ?? DEFAULT_CHUNK_ROWS;
  const through = options.range.through;
  const readAfter = (after: ListPosition | null, limit: number): Promise<R[]> => {
    const reading = (async () => {
      await yieldToEventLoop();
      return read({ after, through }, limit);
    })();
    // Should the consumer stop while it is in flight, nobody awaits it: its failure is not an unhandled one.
    reading.catch(() => undefined);
    return reading;
  };
  let left = options.maxRows ?? Number.POSITIVE_INFINITY;
  let limit = Math.min(chunkRows, left);
  let next: Promise<R[]> | null = left > 0 ? readAfter(options.range.after, limit) : null;
  while (next !== null) {
    const rows = await next;
    left -= rows.length;
    next = null;
    if (rows.length === limit && left > 0) {
      const last = rows[rows.length - 1]!;
      limit = Math.min(chunkRows, left);
      next = readAfter({ firstStagedAt: last.firstStagedAt, externalAccountNumber: last.externalAccountNumber }, limit);
    }
    if (rows.length > 0) yield rows;
  }
}
