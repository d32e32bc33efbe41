import { DomainError } from '../domain/errors.js';
import { ConcurrencyError, type EventStore, type StoredLedgerEvent } from './event-store.js';

/** What a store tells the service's metrics; every method runs on the write path, so must be cheap and must not throw. */
export interface StoreObserver {
  /** Events a committed write appended (once per write, in append order). */
  onEventsAppended(events: readonly StoredLedgerEvent[]): void;
  /** A decider refused a command with this code: nothing was written. */
  onCommandRefused(code: string): void;
  /** A write found a stream (or a guarded one) moved on: nothing was written; the caller re-reads and retries, or answers 409. */
  onConcurrencyConflict(): void;
  /** One group-commit batch: how many units of work, and how long from BEGIN until the batch was durable (ms). */
  onBatchCommitted(units: number, commitMs: number): void;
  /** PostgreSQL: the cluster's writers' lock, waited for and then held by one batch (ms). */
  onWriteLock(waitMs: number, heldMs: number): void;
}

/** The event store with its outcomes told to `observer`: a decorator, so neither adapter's unit of work changes for it. */
export function observedEventStore(store: EventStore, observer: StoreObserver): EventStore {
  const watch = async <T>(write: Promise<T>, appended: (result: T) => readonly StoredLedgerEvent[]): Promise<T> => {
    try {
      const result = await write;
      const events = appended(result);
      if (events.length > 0) observer.onEventsAppended(events);
      return result;
    } catch (error) {
      if (error instanceof ConcurrencyError) observer.onConcurrencyConflict();
      else if (error instanceof DomainError) observer.onCommandRefused(error.code);
      throw error;
    }
  };
  // A dry run rolls back: its events were never appended.
  const kept = (dryRun: boolean | undefined, events: readonly StoredLedgerEvent[]) => (dryRun ? [] : events);
  return {
    readStream: (streamId) => store.readStream(streamId),
    streamVersion: (streamId) => store.streamVersion(streamId),
    readAll: (after, limit) => store.readAll(after, limit),
    isEmpty: () => store.isEmpty(),
    appendToStream: (streamId, expectedVersion, events, options) =>
      watch(store.appendToStream(streamId, expectedVersion, events, options), (stored) => stored),
    handle: (streamId, decider, command, options) =>
      watch(store.handle(streamId, decider, command, options), (result) => kept(options.dryRun, result.events)),
    handleMany: (commands, options) =>
      watch(store.handleMany(commands, options), (results) => kept(options.dryRun, results.flatMap((result) => result.events))),
  };
}
