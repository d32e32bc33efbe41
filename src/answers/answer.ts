import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';

/**
 * What an operation answers, before it is rendered. One presenter per operation builds it for its route
 * and for the Idempotency-Key recovery (recoveries.ts), so a retry rebuilds the very answer the route
 * renders. Nothing here knows Hono: the recovery runs inside the store's transaction.
 */
export interface Answer<B = unknown> {
  readonly status: ContentfulStatusCode;
  readonly body: B;
}

/** The events a request appended, in the order of the log. */
export type Events = readonly StoredEvent<LedgerEvent>[];

export const ofType = <T extends LedgerEvent['type']>(events: Events, type: T) =>
  events.filter((stored): stored is StoredEvent<Extract<LedgerEvent, { type: T }>> => stored.event.type === type);
