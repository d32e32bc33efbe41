import type { AnyDecider } from '../domain/decider.js';
import type { StreamSnapshot } from './decide.js';

export interface StreamSnapshotsOptions {
  /** Streams kept at most (least recently used dropped first). */
  readonly maxStreams?: number;
  /** Shorter streams are not kept: folding them is cheaper than remembering them. */
  readonly minEvents?: number;
}

/**
 * The states a store's deciders last reached on its longest streams, in memory, so a command on a long
 * stream folds only the events appended since. A snapshot is only a starting point: the store reads every
 * event after its version, so an append made elsewhere (the CLI on the same file) is never missed. It is
 * remembered only after its batch's COMMIT (never a rolled-back unit or a dry run), and states are immutable
 * from the caller's view, so the cache and a result may share one.
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
