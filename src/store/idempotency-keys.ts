import type { StoredLedgerEvent, WriteTransaction } from './event-store.js';
import { toIdempotencyRecord, type IdempotencyKeyRaw } from './idempotency-schema.js';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_RETENTION_MS,
  type AnswerRebuilder,
  type ExistingReservation,
  type HeldReservation,
  type IdempotencyRecord,
  type IdempotencyRecords,
  type IdempotentRequest,
  type RecordedAnswer,
  type ReserveOptions,
  type StoredResponse,
} from './idempotency.js';
import { op, type Op, type Procedure } from './procedure.js';

/** How a store runs one statement on `idempotency_keys` (`?` placeholders). */
export interface KeyStatements {
  get(sql: string, params: readonly unknown[]): Op<IdempotencyKeyRaw | undefined>;
  /** Returns how many rows it changed. */
  run(sql: string, params: readonly unknown[]): Op<number>;
}

export const FIND_KEY = 'SELECT * FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?';
/** The reservation `created_at = ?` if it is still one: nothing recorded with it. */
const EMPTY_RESERVATION = "key_id = ? AND idempotency_key = ? AND created_at = ? AND status IS NULL AND event_positions = '[]'";

/** A response stored on the key's row (a new row if there is none), where `where` allows it on the row that is there. */
const completion = (where: string) =>
  `INSERT INTO idempotency_keys
     (key_id, idempotency_key, fingerprint, request_path, event_positions, status, response_body, response_content_type, created_at, completed_at)
   VALUES (?, ?, ?, ?, '[]', ?, ?, ?, ?, ?)
   ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
     status = excluded.status, response_body = excluded.response_body,
     response_content_type = excluded.response_content_type, completed_at = excluded.completed_at
   WHERE ${where}`;
/** The holder's completion: on its row if it still holds it (the first completion wins), or a new row. */
const COMPLETE_HELD = completion('idempotency_keys.created_at = excluded.created_at AND idempotency_keys.completed_at IS NULL');
/** A response rebuilt for a record nobody completed: the first one stored wins. */
const COMPLETE_ANY = completion('idempotency_keys.status IS NULL');

/**
 * Rows a purge deletes at most (the oldest expired): the middleware purges every 100 completions, each adding
 * one row at most, so a window of 1,000 keeps up with the writes ten times over and bounds what one purge reads.
 */
export const PURGE_WINDOW = 1_000;

/** The instant before which a record is past the retention. */
export const retentionCutoff = (now: Date) => new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS).toISOString();

/**
 * A held key's events recorded on its row: their positions (the same comma-separated list twice) appended to
 * its JSON array, and their answer if given, while it is still the reservation `created_at = ?` (nobody took
 * the key over, nobody completed it).
 */
const recordEvents = (withAnswer: boolean) => `UPDATE idempotency_keys
    SET event_positions = CASE WHEN event_positions = '[]' THEN '[' || ? || ']' ELSE rtrim(event_positions, ']') || ',' || ? || ']' END
        ${withAnswer ? ', status = ?, response_body = ?, response_content_type = ?' : ''}
  WHERE key_id = ? AND idempotency_key = ? AND created_at = ? AND completed_at IS NULL`;
const RECORD_EVENTS = recordEvents(false);
const RECORD_EVENTS_AND_ANSWER = recordEvents(true);

/** An answer's columns (status, body, content type), null where there is none. */
export const answerColumns = (answer: RecordedAnswer) => [answer?.status ?? null, answer?.body ?? null, answer?.contentType ?? null];

/** The statement, and its parameters, that records `positions` and `answer` (undefined: left as it is) on the row `request` holds under `token`. */
export function recording(request: IdempotentRequest, token: string, positions: readonly number[], answer: RecordedAnswer): [string, unknown[]] {
  const list = positions.join(',');
  const stored = answer === undefined ? [] : answerColumns(answer);
  return [answer === undefined ? RECORD_EVENTS : RECORD_EVENTS_AND_ANSWER, [list, list, ...stored, request.keyId, request.idempotencyKey, token]];
}

export const expired = (raw: IdempotencyKeyRaw, now: Date) => raw.created_at < retentionCutoff(now);

/** A reservation that recorded nothing (no events, no response), held past its lease. */
export const pastLease = (raw: IdempotencyKeyRaw, now: Date) => isEmpty(raw) && Date.parse(raw.created_at) < now.getTime() - IDEMPOTENCY_LEASE_MS;

export const isEmpty = (raw: IdempotencyKeyRaw) => raw.status === null && raw.event_positions === '[]';

/** `token`, or an instant just after `previous` if the clock has not passed it: a new holder's token is later than any before it. */
export const laterToken = (token: string, previous: string) => (token > previous ? token : new Date(Date.parse(previous) + 1).toISOString());

/** A key's slot among the claims a process holds `with-writes`. */
export const claimSlot = (request: IdempotentRequest) => `${request.keyId}\n${request.idempotencyKey}`;

/** The record of a key another request holds before its row is written: what it is about to write. */
export const inFlightRecord = (request: IdempotentRequest, createdAt: string): IdempotencyRecord => ({ ...request, eventPositions: [], response: null, createdAt });

/** The key's row unless it is past the retention, in which case it is deleted. */
export function* liveRow(sql: KeyStatements, keyId: string, idempotencyKey: string, now: Date, find = FIND_KEY): Procedure<IdempotencyKeyRaw | null> {
  const raw = yield* op(sql.get(find, [keyId, idempotencyKey]));
  if (!raw) return null;
  if (!expired(raw, now)) return raw;
  yield* op(sql.run('DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ? AND created_at = ?', [keyId, idempotencyKey, raw.created_at]));
  return null;
}

/**
 * The key's live record, unless it is a reservation `abandoned` by its holder: that one is taken over under
 * a later token (so that the old holder's writes fail their check), which is returned; null if no live row.
 */
export function* takeOverAbandoned(
  sql: KeyStatements,
  request: IdempotentRequest,
  now: Date,
  abandoned: (raw: IdempotencyKeyRaw, now: Date) => boolean,
  find = FIND_KEY,
): Procedure<{ token: string } | IdempotencyRecord | null> {
  const existing = yield* liveRow(sql, request.keyId, request.idempotencyKey, now, find);
  if (!existing || !abandoned(existing, now)) return existing && toIdempotencyRecord(existing);
  const token = laterToken(now.toISOString(), existing.created_at);
  const params = [request.fingerprint, request.requestPath, token, request.keyId, request.idempotencyKey, existing.created_at];
  const taken = yield* op(sql.run(`UPDATE idempotency_keys SET fingerprint = ?, request_path = ?, created_at = ? WHERE ${EMPTY_RESERVATION}`, params));
  return taken === 1 ? { token } : toIdempotencyRecord(existing);
}

/** Claims the key in one unit of work of the store: a new reservation's token when no live row is there (see `takeOverAbandoned`). */
export function* claimKey(
  sql: KeyStatements,
  request: IdempotentRequest,
  now: Date,
  abandoned: (raw: IdempotencyKeyRaw, now: Date) => boolean,
  find = FIND_KEY,
): Procedure<{ token: string } | IdempotencyRecord> {
  const found = yield* takeOverAbandoned(sql, request, now, abandoned, find);
  if (found) return found;
  const token = now.toISOString();
  const reserve = `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, request_path, event_positions, created_at) VALUES (?, ?, ?, ?, '[]', ?)`;
  yield* op(sql.run(reserve, [request.keyId, request.idempotencyKey, request.fingerprint, request.requestPath, token]));
  return { token };
}

/** A store's part in a key its request holds. */
export interface Hold {
  /**
   * Records, in their unit of work `tx`, the global positions of the events appended with the key (none: `tx`
   * is only checked) and the answer they rebuild; the unit fails if the key is no longer the request's.
   */
  record(tx: WriteTransaction, positions: readonly number[], answer: RecordedAnswer): void;
  /** Whether the key has a row while nothing is recorded with it, for `release` to delete. */
  readonly hasRow: boolean;
  /** Ends the hold in the store's memory (its claim, its lock). */
  end(): void | Promise<void>;
}

/**
 * One statement as a procedure: it runs when the procedure runs, in the unit of work `write` gives it. (An
 * argument is evaluated at once: `op(sql.run(...))` ran the statement on its own, outside the unit, where
 * SQLite waits for the writers' lock in its busy handler, asleep on the event loop, and syncs on it.)
 */
function* statement(sql: KeyStatements, text: string, params: readonly unknown[]): Procedure<number> {
  return yield* op(sql.run(text, params));
}

/**
 * The Idempotency-Key records both stores keep, the same way: a reservation is a row with neither events nor
 * a response; its `created_at` (the token) identifies it while it is held, so the events' unit of work and
 * the completion write on the row only if it is still the reservation they took. A store gives its
 * statements, how it runs them (in a unit of work of its own: `write`), how it claims a key and records
 * a held key's events, and which expired rows a purge deletes.
 */
export abstract class KeyRecords implements IdempotencyRecords {
  constructor(
    protected readonly clock: () => Date,
    protected readonly rebuild: AnswerRebuilder,
  ) {}

  protected abstract readonly sql: KeyStatements;
  /** Deletes rows created before its one parameter, the retention's cutoff. */
  protected abstract readonly purge: string;
  /** Runs `procedure` with the store's statements as they are. */
  protected abstract run<R>(procedure: Procedure<R>): Promise<R>;
  abstract reserve(request: IdempotentRequest, options?: ReserveOptions): Promise<HeldReservation | ExistingReservation>;

  /** Runs `procedure` with the store's statements, in a unit of work of its own. */
  protected write<R>(procedure: Procedure<R>): Promise<R> {
    return this.run(procedure);
  }

  async find(keyId: string, idempotencyKey: string): Promise<IdempotencyRecord | null> {
    const raw = await this.run(liveRow(this.sql, keyId, idempotencyKey, this.clock()));
    return raw ? toIdempotencyRecord(raw) : null;
  }

  async complete(request: IdempotentRequest, response: StoredResponse): Promise<void> {
    await this.completeWith(COMPLETE_ANY, request, response);
  }

  purgeExpired(): Promise<number> {
    return this.write(statement(this.sql, this.purge, [retentionCutoff(this.clock())]));
  }

  /**
   * The reservation `request` holds under `token`. With `answerFrom`, each write records the answer rebuilt
   * from every event recorded so far; a response equal to the last one needs no completion (`sameResponse`).
   */
  protected held(request: IdempotentRequest, token: string, options: ReserveOptions | undefined, { record, hasRow, end }: Hold): HeldReservation {
    const from = options?.answerFrom;
    const events: StoredLedgerEvent[] = [];
    let last: RecordedAnswer;
    const answerWith = (appended: readonly StoredLedgerEvent[]): RecordedAnswer => {
      if (!from || appended.length === 0) return undefined;
      events.push(...appended);
      if (from.body === undefined) return (last = null);
      try {
        return (last = this.rebuild(request.requestPath, from.body, [...events].sort((a, b) => a.globalPosition - b.globalPosition), token));
      } catch {
        return (last = null);
      }
    };
    const ending = async (work: () => Promise<unknown>) => {
      try {
        await work();
      } finally {
        await end();
      }
    };
    return {
      held: true,
      reservedAt: token,
      beforeCommit: (appended, tx) => record(tx, appended.map((stored) => stored.globalPosition), answerWith(appended)),
      // The first completion wins; it replaces an answer recorded with the events.
      complete: (response) => ending(() => this.completeWith(COMPLETE_HELD, request, response, token)),
      recordedAnswer: () => last,
      keepRecorded: async () => end(),
      release: () =>
        ending(async () => {
          if (hasRow) await this.write(statement(this.sql, `DELETE FROM idempotency_keys WHERE ${EMPTY_RESERVATION}`, [request.keyId, request.idempotencyKey, token]));
        }),
    };
  }

  /** Stores `response` by `sql` (a new row is created at `createdAt`, by default now). */
  private completeWith(sql: string, request: IdempotentRequest, response: StoredResponse, createdAt?: string): Promise<number> {
    const { keyId, idempotencyKey, fingerprint, requestPath } = request;
    const now = this.clock().toISOString();
    const params = [keyId, idempotencyKey, fingerprint, requestPath, response.status, response.body, response.contentType, createdAt ?? now, now];
    return this.write(statement(this.sql, sql, params));
  }
}
