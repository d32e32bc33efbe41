import Cursor from 'pg-cursor';
import type pg from 'pg';
import { eventColumns, toReplayedEvent, type EventRow } from '../event-codec.js';
import { DEFAULT_LOG_BATCH, logSnapshot, pageSnapshot, waitForAppend, type EventLog, type LogReadOptions, type LogSnapshot } from '../event-log.js';
import { newClient, type PgOptions } from './pg-database.js';

/** The fallback poll of live readers, should a notification be missed. */
const POLL_MS = 1_000;

/** `AND type = ANY($n)` and `AND stream_id = ANY($m)` for a read's filters, numbered from `index`, with their values. */
function readFilter(types: readonly string[] | undefined, streams: readonly string[] | undefined, index: number): { sql: string; values: unknown[] } {
  let sql = '';
  const values: unknown[] = [];
  if (types !== undefined) {
    values.push([...types]);
    sql += ` AND type = ANY($${index + values.length - 1})`;
  }
  if (streams !== undefined) {
    values.push([...streams]);
    sql += ` AND stream_id = ANY($${index + values.length - 1})`;
  }
  return { sql, values };
}

/**
 * The PostgreSQL log reader: a page is one bounded query on the pool; a whole read is one REPEATABLE READ,
 * READ ONLY transaction on a connection of its own, streamed through a cursor.
 */
export class PgEventLog implements EventLog {
  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly options: PgOptions = {},
    /** Wake-ups on every instance's commits (LISTEN, see pg-listen.ts). */
    private readonly onAppended: (wake: () => void) => () => void = () => () => undefined,
  ) {}

  waitForAppend(after: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return waitForAppend(() => this.lastPosition(), this.onAppended, POLL_MS, after, timeoutMs, signal);
  }

  async lastPosition(): Promise<number> {
    const { rows } = await this.pool.query<{ p: number }>('SELECT coalesce(max(global_position), 0) AS p FROM events');
    return rows[0]?.p ?? 0;
  }

  async open(options: LogReadOptions = {}): Promise<LogSnapshot> {
    if (options.types?.length === 0 || options.streams?.length === 0) return logSnapshot(options.through ?? 0, options.count ? 0 : null, async function* () {});
    const limit = options.limit;
    if (limit === undefined) return this.snapshot(options);
    return pageSnapshot(options, limit, await this.lastPosition(), async ({ after, through, columns }, streams) => {
      const filter = readFilter(options.types, streams, 3);
      return (
        await this.pool.query<EventRow>(
          `SELECT ${columns} FROM events
            WHERE global_position > $1 AND global_position <= $2${filter.sql} ORDER BY global_position LIMIT $${3 + filter.values.length}`,
          [after, through, ...filter.values, limit],
        )
      ).rows;
    });
  }

  private async snapshot(options: LogReadOptions): Promise<LogSnapshot> {
    const client = await newClient(this.url, { ...this.options, statementTimeoutMs: 0, idleInTransactionTimeoutMs: 0, role: 'log-read' });
    let cursor: Cursor<EventRow> | null = null;
    const end = async () => {
      await cursor?.close().catch(() => undefined);
      await client.query('COMMIT').catch(() => undefined);
      await client.end().catch(() => undefined);
    };
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const last = (await client.query<{ p: number }>('SELECT coalesce(max(global_position), 0) AS p FROM events')).rows[0]!.p;
      const through = Math.min(options.through ?? last, last);
      const after = options.after ?? 0;
      const filter = readFilter(options.types, options.streams, 3);
      const total = options.count
        ? (await client.query<{ n: number }>(`SELECT count(*) AS n FROM events WHERE global_position > $1 AND global_position <= $2${filter.sql}`, [after, through, ...filter.values]))
            .rows[0]!.n
        : null;
      const reading = client.query(
        new Cursor<EventRow>(
          `SELECT ${eventColumns(options.withBulkFields ?? true)} FROM events WHERE global_position > $1 AND global_position <= $2${filter.sql} ORDER BY global_position`,
          [after, through, ...filter.values],
        ),
      );
      cursor = reading;
      const size = options.batchSize ?? DEFAULT_LOG_BATCH;
      return logSnapshot(
        through,
        total,
        async function* () {
          for (;;) {
            const rows = await reading.read(size);
            if (rows.length === 0) break;
            yield rows.map(toReplayedEvent);
          }
        },
        end,
      );
    } catch (error) {
      await end();
      throw error;
    }
  }
}

