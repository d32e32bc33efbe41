import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { AppEnv } from '../env.js';
import { externalEventTypes } from '../../external-events/catalogue.js';
import { DomainError } from '../../domain/errors.js';
import type { LedgerContext } from '../../application/context.js';
import { errorBody, statusOf } from '../../answers/errors.js';
import { parseQuery } from '../query.js';
import { positionPageQuery } from '../pagination.js';

/** GET events/?after=&limit= (beyond the spec): the external events, scoped to the token's suppliers. */
export const eventsFeedQuerySchema = z.object(positionPageQuery);

/** One event of the feed: an external event's payload (its type's schema is in the document's `webhooks`) with its id and position. */
export const feedItemSchema = z.object({
  position: z.int().meta({ description: "The event's position in the log: pass the last one seen as `after` (or as Last-Event-ID) to continue." }),
  id: z.string().meta({ description: "The event's id: the same in every delivery of it (feed, stream, webhook, broker)." }),
  type: z.enum(externalEventTypes),
  timestamp: z.string().meta({ description: 'When it was recorded: ISO 8601, UTC, to the second.' }),
  data: z.record(z.string(), z.unknown()).meta({ description: "The event's data, as its type's schema in `webhooks` says: always `import_supplier` (null for the shared catalogue and supply points)." }),
});
export const eventsFeedResponseSchema = z.object({ events: z.array(feedItemSchema), next_after: z.number().int() });

/**
 * Longest a live SSE stream waits for a wake-up before it looks at the log and checks its credential
 * again: a token that expires, or a revocation whose wake-up was missed, ends the stream within this.
 * A revocation itself appends an event, which wakes every stream at once (on PostgreSQL, on every instance).
 */
export const CREDENTIAL_RECHECK_MS = 5_000;

/** The SSE event that ends a stream whose credential stopped being valid; its data is the 401's error body. */
export const STREAM_ERROR_EVENT = 'error';

export function eventsFeedRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>().get('/events/', async (c) => {
    const query = parseQuery(c, eventsFeedQuerySchema);
    let suppliers = c.get('principal').suppliers;
    const { limit } = query;

    if (!(c.req.header('accept') ?? '').includes('text/event-stream')) {
      const page = await ctx.read.feedPage(query.after, limit, suppliers);
      return c.json({ events: page.events, next_after: page.nextAfter });
    }

    // Server-sent events: from `after`, or from Last-Event-ID when a client reconnects.
    const lastEventId = c.req.header('last-event-id');
    if (lastEventId !== undefined && !/^\d{1,15}$/.test(lastEventId)) {
      throw new DomainError('invalid', 'Last-Event-ID must be an event position.', { attr: 'Last-Event-ID' });
    }
    let after = lastEventId !== undefined ? Number(lastEventId) : query.after;
    const recheckCredential = c.get('recheckCredential');
    return streamSSE(c, async (stream) => {
      // New events wake the stream (a commit on any instance of the service; polling as the fallback).
      const aborted = new AbortController();
      stream.onAbort(() => aborted.abort());
      for (;;) {
        const page = await ctx.read.feedPage(after, limit, suppliers);
        for (const event of page.events) {
          await stream.writeSSE({ id: String(event.position), event: event.type, data: JSON.stringify(event) });
        }
        const moved = page.nextAfter > after;
        after = page.nextAfter;
        if (!moved) await ctx.read.waitForFeed(after, CREDENTIAL_RECHECK_MS, aborted.signal);
        if (stream.aborted || stream.closed) return;
        // Before every further page, the credential is checked as a new request's would be: a revoked key
        // or an expired token ends the stream with the 401's body, and the client's reconnect gets the 401.
        try {
          suppliers = (await recheckCredential()).suppliers;
        } catch (error) {
          if (!(error instanceof DomainError) || statusOf(error.code) !== 401) throw error;
          await stream.writeSSE({ event: STREAM_ERROR_EVENT, data: JSON.stringify(errorBody(error)) });
          return;
        }
      }
    });
  });
}
