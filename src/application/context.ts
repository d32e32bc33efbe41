import { createHash } from 'node:crypto';
import type { FeedReadModels } from '../feed/event-feed.js';
import type { ReadModels } from '../queries/read-models.js';
import type { BeforeCommit, EventStore } from '../store/event-store.js';
import type { Clock, IdGenerator } from './clock-and-ids.js';

export interface LedgerContext {
  readonly store: EventStore;
  readonly read: ReadModels & FeedReadModels;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** Who is acting, for the event metadata, and what the request needs done with each of its writes. */
export interface Actor {
  readonly actor: string;
  readonly requestId: string | null;
  /** The W3C `traceparent` the request arrived with (HTTP callers that send one): recorded in the events' metadata. */
  readonly traceparent?: string;
  /** Runs inside the transaction of every write of this request (the HTTP layer records its Idempotency-Key with its events). */
  readonly beforeCommit?: BeforeCommit;
}

/** API keys are stored only as their SHA-256 hash (the key itself carries 256 random bits). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
