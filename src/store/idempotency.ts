import { DomainError } from '../domain/errors.js';
import type { BeforeCommit, StoredLedgerEvent } from './event-store.js';

/** How long a key is remembered: the draft asks for at least 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** How long a reservation that recorded nothing holds its key at most, even if its holder cannot be told stopped. */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;

/** The answer while another request holds the key (409, a retry later may get the stored response). */
export const keyInProgress = () =>
  new DomainError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still being handled; retry later.', {
    attr: 'Idempotency-Key',
  });

/** The request being handled under an Idempotency-Key. */
export interface IdempotentRequest {
  readonly keyId: string;
  readonly idempotencyKey: string;
  /** SHA-256 of method, path, query and body: a retry must send the same request. */
  readonly fingerprint: string;
  /** The route path, to answer from the events if the response was never stored. */
  readonly requestPath: string;
}

export interface StoredResponse {
  readonly status: number;
  readonly body: string;
  readonly contentType: string | null;
}

/** What is kept for one (API key, Idempotency-Key): the request that holds or held it, and what it recorded. */
export interface IdempotencyRecord extends IdempotentRequest {
  /** Global positions of the events the request appended, in order. */
  readonly eventPositions: readonly number[];
  /** The stored response; null while the request runs, or when it died before storing it. */
  readonly response: StoredResponse | null;
  /** When the key was reserved (the reservation's identity while it is held). */
  readonly createdAt: string;
}

/**
 * The answer recorded with a request's events, in their unit of work: what a retry gets if the request
 * stores no other (`StoredResponse`), nothing known yet (`null`: a retry rebuilds it from the events), or
 * the answer recorded by an earlier unit left as it is (`undefined`).
 */
export type RecordedAnswer = StoredResponse | null | undefined;

/**
 * The answer a keyed request's events rebuild, from its body and the events recorded with its key so far
 * (src/answers/recoveries.ts, handed to the records by the composition root); null when there is none.
 */
export type AnswerRebuilder = (requestPath: string, body: unknown, events: readonly StoredLedgerEvent[], reservedAt: string) => StoredResponse | null;

/** How `reserve` claims a key, and for a request whose writes record their answer, its body to rebuild it from. */
export interface ReserveOptions {
  readonly claim?: ClaimMode;
  /** Present when each write should record the answer its events rebuild (the request's parsed body, `undefined` if not JSON). */
  readonly answerFrom?: { readonly body: unknown };
}

export const sameResponse = (a: StoredResponse, b: StoredResponse) => a.status === b.status && a.body === b.body && a.contentType === b.contentType;

/** The key is held by the caller's request: run it, then complete, keep what was recorded, or release. */
export interface HeldReservation {
  readonly held: true;
  /** When the key was reserved: the record's `createdAt`, as a retry that rebuilds the response reads it. */
  readonly reservedAt: string;
  /**
   * Pass to every write the request makes: it records the events' positions with the key (and with
   * `answerFrom` their answer) in their unit of work, and fails the unit with `idempotency_key_in_progress`
   * if the key is no longer this request's (taken over, or claimed first by another process).
   */
  readonly beforeCommit: BeforeCommit;
  /** Stores the response, ending the hold: the first completion wins, over an answer recorded with the events. */
  complete(response: StoredResponse): Promise<void>;
  /** The answer the latest write recorded (undefined: none): a response equal to it is kept, another completed. */
  recordedAnswer(): RecordedAnswer;
  /** Ends the hold, writing nothing: the answer recorded with the events is the request's response. */
  keepRecorded(): Promise<void>;
  /** Gives the key back without a response (a transient answer) unless events were recorded with it. */
  release(): Promise<void>;
}

/**
 * How `reserve` claims a key. `store`: written before the request runs, visible to every process at once,
 * for a request that acts outside the ledger before its events (a payment vendor's call). `with-writes`:
 * the store may hold the claim in this process and write the key's row with the request's first events,
 * whose unit fails if another process got the key first; a keyed write then costs one unit of work, as an
 * unkeyed one does.
 */
export type ClaimMode = 'store' | 'with-writes';

/** Another request holds or held the key: what is recorded for it. */
export interface ExistingReservation {
  readonly held: false;
  readonly record: IdempotencyRecord;
}

/**
 * Idempotency-Key records (docs/reliability.md), a port each store keeps in its own database. A key is
 * claimed atomically in a unit of work of the store (or, `with-writes`, of the request's first events), so
 * the claim holds for every process on the database; the events a request appends, and the answer they
 * rebuild, are recorded with its key in their own transaction. Records past the retention are deleted.
 */
export interface IdempotencyRecords {
  /** The key's record; one past the retention is deleted (the key may then be used afresh). */
  find(keyId: string, idempotencyKey: string): Promise<IdempotencyRecord | null>;
  /**
   * Claims the key: held when no live record exists (none, one past the retention, or an empty reservation
   * whose holder stopped or whose lease ran out), otherwise the record there (an empty one while another
   * request holds the key without a row yet).
   */
  reserve(request: IdempotentRequest, options?: ReserveOptions): Promise<HeldReservation | ExistingReservation>;
  /** Stores a response on a record nobody completed (a response rebuilt from its events); the first one wins. */
  complete(request: IdempotentRequest, response: StoredResponse): Promise<void>;
  /** Deletes records past the retention (SQLite: those among its oldest rows, a bounded number a call); returns how many. */
  purgeExpired(): Promise<number>;
}
