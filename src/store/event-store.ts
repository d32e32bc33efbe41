import type { CommandMetadata, StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { Decider } from './decider.js';

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

/** A fact a command was decided on: the stream it was read from must still be at this version when appending. */
export interface StreamGuard {
  readonly streamId: string;
  readonly expectedVersion: number;
}

export interface HandleOptions {
  readonly metadata: CommandMetadata;
  readonly guards?: readonly StreamGuard[];
  /** Decide, append and project as usual, then roll the transaction back. */
  readonly dryRun?: boolean;
}

/** One command of `handleMany`: the stream it is decided on and the decider that decides it. */
export interface StreamCommand<C, E extends LedgerEvent, S> {
  readonly streamId: string;
  readonly decider: Decider<C, E, S>;
  readonly command: C;
}

export interface HandleResult<E extends LedgerEvent, S> {
  readonly events: readonly StoredEvent<E>[];
  readonly state: S;
  readonly streamVersion: number;
}

/**
 * The event store behind the command handlers. Asynchronous at its boundary so
 * that a PostgreSQL implementation can follow; the transaction boundary lives
 * here, the deciders stay pure.
 */
export interface EventStore {
  /** Every event of one stream, in stream order, parsed and upcast. */
  readStream(streamId: string): Promise<readonly StoredEvent<LedgerEvent>[]>;
  /** Current version of a stream (0 when it has no events). */
  streamVersion(streamId: string): Promise<number>;
  /** Appends with an expected version and runs the inline projections, in one transaction. */
  appendToStream(
    streamId: string,
    expectedVersion: number,
    events: readonly LedgerEvent[],
    metadata: CommandMetadata,
  ): Promise<readonly StoredEvent<LedgerEvent>[]>;
  /**
   * The command handler: reads the stream, folds it with `evolve`, calls the
   * pure `decide`, appends the new events and runs the inline projections in
   * one transaction. A DomainError from `decide` leaves nothing written.
   */
  handle<C, E extends LedgerEvent, S>(
    streamId: string,
    decider: Decider<C, E, S>,
    command: C,
    options: HandleOptions,
  ): Promise<HandleResult<E, S>>;
  /**
   * Several commands, each on its own stream, as one atomic unit: the guards
   * are checked, then every command in order is handled as `handle` would
   * (read, fold, decide, append, project), all in one transaction. Any error
   * (a DomainError from a `decide`, a ConcurrencyError) leaves nothing of any
   * of them written. A stream may appear more than once: each command sees
   * the events of the commands before it. `dryRun` rolls the whole unit back.
   * Results come in the order of `commands`.
   */
  handleMany<C, E extends LedgerEvent, S>(
    commands: readonly StreamCommand<C, E, S>[],
    options: HandleOptions,
  ): Promise<HandleResult<E, S>[]>;
  /** The whole log in global order, from after `position`. */
  readAll(after: number, limit: number): Promise<readonly StoredEvent<LedgerEvent>[]>;
  /** Whether the log holds any event at all. */
  isEmpty(): Promise<boolean>;
}
