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
 * Reads a keyset range chunk by chunk: each chunk is one bounded query that
 * starts after the last row of the previous one, so no connection, cursor or
 * transaction is held between chunks (the SQLite connection stays free for
 * every other request; a PostgreSQL pool connection is borrowed per chunk),
 * and the event loop is given back before each chunk. Memory holds two
 * chunks: the next one is asked for as soon as the current one is handed
 * over, so a database in another process (PostgreSQL) reads it while this
 * one is being written out. Not one snapshot: a row is read as it is when
 * its chunk is read, and as rows never move in the order, none is read twice
 * or skipped over (rows added behind the read are not seen; rows added ahead
 * are).
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
