import type { CommandMetadata, StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { StoredLedgerEvent } from '../../projections/projection.js';
import type { Decider } from '../domain/decider.js';

export type { StoredLedgerEvent };

/**
 * The store cannot take the write now (the writers' lock not granted in time, a COMMIT's outcome unknown,
 * an instance older than the database): the request may be sent again with its Idempotency-Key. Answered 503.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** The stream was not at the version the caller expected: nothing was written. */
export class ConcurrencyError extends Error {
  constructor(
    readonly streamId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number,
  ) {
    super(`stream ${streamId} is at version ${actualVersion}, expected ${expectedVersion}`);
    this.name = 'ConcurrencyError';
  }
}

/** A write would have broken a unique index of a read model: nothing of it was written; a retry may take a fresh value. */
export class UniqueConstraintError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UniqueConstraintError';
  }
}

/** A fact a command was decided on: the stream it was read from must still be at this version when appending. */
export interface StreamGuard {
  readonly streamId: string;
  readonly expectedVersion: number;
}

/** The write transaction a `beforeCommit` hook runs in: opaque outside the adapter that opened it (`store`). */
export interface WriteTransaction {
  readonly store: string;
}

/**
 * Runs inside the unit of work of one write once its events (maybe none) were appended and projected (never
 * for a dry run): what it writes through `tx` commits or rolls back with them, and a throw fails the write.
 * On the SQLite store it must be synchronous.
 */
export type BeforeCommit = (appended: readonly StoredLedgerEvent[], tx: WriteTransaction) => void | Promise<void>;

export interface WriteOptions {
  readonly metadata: CommandMetadata;
  readonly beforeCommit?: BeforeCommit;
}

export interface HandleOptions extends WriteOptions {
  readonly guards?: readonly StreamGuard[];
  /** Decide, append and project as usual, then roll the transaction back. */
  readonly dryRun?: boolean;
}

/** One command of `handleMany`: the stream it is decided on and the decider that decides it. */
export interface StreamCommand<C, Ei extends LedgerEvent, Eo extends Ei, S> {
  readonly streamId: string;
  readonly decider: Decider<C, Ei, Eo, S>;
  readonly command: C;
}

export interface HandleResult<Eo extends LedgerEvent, S> {
  readonly events: readonly StoredEvent<Eo>[];
  readonly state: S;
  readonly streamVersion: number;
}

/**
 * The event store (the port). Every write runs in one unit of work: guards checked, streams read and
 * folded, `decide` called, events appended with contiguous stream positions and gapless global positions
 * in commit order, the inline projections updated, `beforeCommit` run, all committed together or not at
 * all; no promise resolves before its unit is durable.
 */
export interface EventStore {
  /** Every event of one stream, in stream order, parsed and upcast. */
  readStream(streamId: string): Promise<readonly StoredLedgerEvent[]>;
  /** Current version of a stream (0 when it has no events). */
  streamVersion(streamId: string): Promise<number>;
  /** Appends with an expected version (a ConcurrencyError otherwise), in one unit. */
  appendToStream(streamId: string, expectedVersion: number, events: readonly LedgerEvent[], options: WriteOptions): Promise<readonly StoredLedgerEvent[]>;
  /** Reads and folds the stream, calls `decide` and appends its events in one unit; a DomainError leaves nothing written. */
  handle<C, Ei extends LedgerEvent, Eo extends Ei, S>(
    streamId: string,
    decider: Decider<C, Ei, Eo, S>,
    command: C,
    options: HandleOptions,
  ): Promise<HandleResult<Eo, S>>;
  /**
   * Several commands as one atomic unit, each handled in order as `handle` would (a stream may appear more
   * than once: each command sees the events of those before it); any error leaves nothing written. Results
   * come in the order of `commands`.
   */
  handleMany<C, Ei extends LedgerEvent, Eo extends Ei, S>(
    commands: readonly StreamCommand<C, Ei, Eo, S>[],
    options: HandleOptions,
  ): Promise<HandleResult<Eo, S>[]>;
  /** At most `limit` events of the whole log in global order, from after `after`. */
  readAll(after: number, limit: number): Promise<readonly StoredLedgerEvent[]>;
  /** Whether the log holds any event at all. */
  isEmpty(): Promise<boolean>;
}
