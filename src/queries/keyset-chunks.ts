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
 * and the event loop is given back before each chunk. Memory holds one
 * chunk. Not one snapshot: a row is read as it is when its chunk is read,
 * and as rows never move in the order, none is read twice or skipped over
 * (rows added behind the read are not seen; rows added ahead are).
 */
export async function* keysetChunks<R extends ListPosition>(
  read: (range: KeysetRange, limit: number) => Promise<R[]>,
  options: KeysetReadOptions,
): AsyncGenerator<R[]> {
  const chunkRows = options.chunkRows ?? DEFAULT_CHUNK_ROWS;
  let left = options.maxRows ?? Number.POSITIVE_INFINITY;
  let after = options.range.after;
  while (left > 0) {
    await yieldToEventLoop();
    const limit = Math.min(chunkRows, left);
    const rows = await read({ after, through: options.range.through }, limit);
    if (rows.length > 0) yield rows;
    if (rows.length < limit) return;
    left -= rows.length;
    const last = rows[rows.length - 1]!;
    after = { firstStagedAt: last.firstStagedAt, externalAccountNumber: last.externalAccountNumber };
  }
}
