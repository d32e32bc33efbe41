import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';

/**
 * What an operation answers, before it is rendered: its status and its JSON
 * body. Each operation has one presenter that builds it, called by its route
 * and by the Idempotency-Key recovery (recoveries.ts), so the answer a retry
 * rebuilds is the very one the route renders. Nothing here knows Hono's
 * context: the recovery runs inside the store's transaction.
 */
export interface Answer<B = unknown> {
  readonly status: ContentfulStatusCode;
  readonly body: B;
}

/** The events a request appended, in the order of the log. */
export type Events = readonly StoredEvent<LedgerEvent>[];

export const ofType = <T extends LedgerEvent['type']>(events: Events, type: T) =>
  events.filter((stored): stored is StoredEvent<Extract<LedgerEvent, { type: T }>> => stored.event.type === type);
