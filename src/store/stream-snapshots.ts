import type { AnyDecider } from '../domain/decider.js';
import type { StreamSnapshot } from './decide.js';

export interface StreamSnapshotsOptions {
  /** Streams kept at most (least recently used dropped first). */
  readonly maxStreams?: number;
  /** Shorter streams are not kept: folding them is cheaper than remembering them. */
  readonly minEvents?: number;
}

/**
 * The states a store's deciders last reached on its longest streams, in memory:
 * a command on an account with 10,000 transactions reads and folds
 * only the events appended since, not the whole stream again.
 *
 * A snapshot is only ever a starting point, never the answer: the store reads
 * every event after its version and folds them onto it, so an append made
 * elsewhere (the operator CLI on the same file) is never missed; the log is
 * append-only and a stored event never changes. What a snapshot must never hold
 * is an event that was not committed, so the store remembers one only after
 * the COMMIT of its batch (never for a unit rolled back, nor a dry run). States
 * are immutable from the caller's view (a decider's fold owns what it changes),
 * so sharing one between the cache and a result is safe.
 */
export class StreamSnapshots {
  private readonly byStream = new Map<string, Map<AnyDecider, StreamSnapshot<unknown>>>();
  private readonly maxStreams: number;
  private readonly minEvents: number;

  constructor(options: StreamSnapshotsOptions = {}) {
    this.maxStreams = options.maxStreams ?? 256;
    this.minEvents = options.minEvents ?? 100;
  }

  get<S>(streamId: string, decider: AnyDecider): StreamSnapshot<S> | undefined {
    const entry = this.byStream.get(streamId);
    if (!entry) return undefined;
    // Most recently used last: the Map's order is the eviction order.
    this.byStream.delete(streamId);
    this.byStream.set(streamId, entry);
    return entry.get(decider) as StreamSnapshot<S> | undefined;
  }

  /** Only with a committed state. */
  remember(streamId: string, decider: AnyDecider, snapshot: StreamSnapshot<unknown>): void {
    if (snapshot.version < this.minEvents) return;
    const entry = this.byStream.get(streamId) ?? new Map<AnyDecider, StreamSnapshot<unknown>>();
    const known = entry.get(decider);
    if (known && known.version >= snapshot.version) return;
    entry.set(decider, snapshot);
    this.byStream.delete(streamId);
    this.byStream.set(streamId, entry);
    while (this.byStream.size > this.maxStreams) this.byStream.delete(this.byStream.keys().next().value!);
  }

  get size(): number {
    return this.byStream.size;
  }
}
