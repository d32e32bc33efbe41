import { DomainError } from '../domain/errors.js';
import type { BeforeCommit } from './event-store.js';

/** How long a key is remembered: the draft asks for at least 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * How long a reservation that recorded nothing (no events, no response) holds
 * its key at most: past it, a retry takes the key over even if the store
 * cannot tell that its holder stopped.
 */
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

/** What is kept for one (API key, Idempotency-Key). */
export interface IdempotencyRecord {
  readonly keyId: string;
  readonly idempotencyKey: string;
  readonly fingerprint: string;
  readonly requestPath: string;
  /** Global positions of the events the request appended, in order. */
  readonly eventPositions: readonly number[];
  /** The stored response; null while the request runs, or when it died before storing it. */
  readonly response: StoredResponse | null;
  /** When the key was reserved (the reservation's identity while it is held). */
  readonly createdAt: string;
}

/** The key is held by the caller's request: run it, then complete or release. */
export interface HeldReservation {
  readonly held: true;
  /** When the key was reserved: the record's `createdAt`, as a retry that rebuilds the response reads it. */
  readonly reservedAt: string;
  /**
   * Pass as `beforeCommit` to every write the request makes: it records the
   * positions of the events appended with the key, inside their unit of work,
   * after checking that the reservation is still this request's (it fails the
   * unit with `idempotency_key_in_progress` if another request took the key over).
   */
  readonly beforeCommit: BeforeCommit;
  /**
   * Stores the request's response (not if one is stored already: the first one wins). With `rebuildable`
   * (the response is exactly what a retry would rebuild from the events recorded with the key), the store
   * may settle once the response is committed, visible to every process, without waiting for it to be
   * durable: should a crash take it back, the retry rebuilds the same answer from the events, which are.
   */
  complete(response: StoredResponse, options?: { readonly rebuildable?: boolean }): Promise<void>;
  /** Gives the key back without a response (a transient answer) unless events were recorded with it. */
  release(): Promise<void>;
}

/** Another request holds or held the key: what is recorded for it. */
export interface ExistingReservation {
  readonly held: false;
  readonly record: IdempotencyRecord;
}

/**
 * Idempotency-Key records (docs/reliability.md), a port: each store keeps
 * them in its own database. The in-flight check is not a process-local set:
 * `reserve` claims the key atomically in a unit of work of the store, so it
 * holds for every process on the database; the events a request appends are
 * recorded with its key in their own transaction. Operational state, not
 * events: records past the retention are deleted.
 */
export interface IdempotencyRecords {
  /** The key's record; one past the retention is deleted (the key may then be used afresh). */
  find(keyId: string, idempotencyKey: string): Promise<IdempotencyRecord | null>;
  /**
   * Claims the key for `request`: held when no live record exists (none, one
   * past the retention, or an empty reservation whose holder is gone: it
   * stopped, which each store detects its own way, or the lease ran out),
   * otherwise the record that is there.
   */
  reserve(request: IdempotentRequest): Promise<HeldReservation | ExistingReservation>;
  /** Stores a response on a record nobody completed (a response rebuilt from its events); the first one wins. */
  complete(request: IdempotentRequest, response: StoredResponse): Promise<void>;
  /** Deletes the records past the retention; returns how many. */
  purgeExpired(): Promise<number>;
}
