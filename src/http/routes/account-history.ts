import { Hono } from 'hono';
import { z } from 'zod';
import type { LedgerContext } from '../../application/context.js';
import { accountHistory, accountHistoryAsOf } from '../../audit/account-history.js';
import { requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';
import { parseQuery } from '../query.js';
import { positionPageQuery } from '../pagination.js';

/** GET account-history/<code>/<ext>/ (beyond the spec): a page of the account's events, or its state as of an instant and a page of the events up to then. */
export const accountHistoryQuerySchema = z.object({
  ...positionPageQuery,
  as_of: z.iso.datetime({ offset: true }).optional(),
});

export const historyEntrySchema = z.object({
  position: z.number().int(),
  stream_position: z.number().int(),
  type: z.string(),
  schema_version: z.number().int(),
  recorded_at: z.string(),
  actor: z.string(),
  request_id: z.string().nullable(),
  data: z.unknown(),
});
export const accountHistoryResponseSchema = z.object({ events: z.array(historyEntrySchema), next_after: z.number().int().nullable() });
/** With `as_of`: the state then, and the events recorded by then, paged like the history (`after`, `limit`). */
export const accountHistoryAsOfResponseSchema = z.object({
  as_of: z.string(),
  state: z.record(z.string(), z.unknown()),
  events: z.array(historyEntrySchema),
  next_after: z.number().int().nullable(),
});

export function accountHistoryRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>().get('/account-history/:supplier/:ext/', async (c) => {
    const supplier = c.req.param('supplier');
    requireSupplierScope(c, supplier);
    const query = parseQuery(c, accountHistoryQuerySchema);
    const ext = c.req.param('ext');
    const page = { after: query.after, limit: query.limit };
    if (query.as_of !== undefined) {
      return c.json(await accountHistoryAsOf(ctx, supplier, ext, new Date(query.as_of), page));
    }
    return c.json(await accountHistory(ctx, supplier, ext, page));
  });
}
