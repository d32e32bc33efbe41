import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { AppEnv } from '../env.js';
import { DomainError } from '../../domain/errors.js';
import type { LedgerContext } from '../../application/context.js';
import { parseQuery } from '../query.js';
import { positionPageQuery } from '../pagination.js';

/** GET events/?after=&limit= (beyond the spec): the integration event feed, scoped to the token's suppliers. */
export const eventsFeedQuerySchema = z.object(positionPageQuery);

export const integrationEventSchema = z.object({
  position: z.number().int(),
  type: z.string(),
  occurred_at: z.string(),
  import_supplier: z.string().nullable(),
  external_account_number: z.string().optional(),
  data: z.record(z.string(), z.unknown()),
});
export const eventsFeedResponseSchema = z.object({ events: z.array(integrationEventSchema), next_after: z.number().int() });

/** Longest a live SSE stream waits for a wake-up before it looks at the log again. */
const WAIT_MS = 15_000;

export function eventsFeedRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>().get('/events/', async (c) => {
    const query = parseQuery(c, eventsFeedQuerySchema);
    const suppliers = c.get('principal').suppliers;
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
    return streamSSE(c, async (stream) => {
      // New events wake the stream (a commit on any instance of the service; polling as the fallback).
      const aborted = new AbortController();
      stream.onAbort(() => aborted.abort());
      while (!stream.aborted && !stream.closed) {
        const page = await ctx.read.feedPage(after, limit, suppliers);
        for (const event of page.events) {
          await stream.writeSSE({ id: String(event.position), event: event.type, data: JSON.stringify(event) });
        }
        const moved = page.nextAfter > after;
        after = page.nextAfter;
        if (!moved) await ctx.read.waitForFeed(after, WAIT_MS, aborted.signal);
      }
    });
  });
}
