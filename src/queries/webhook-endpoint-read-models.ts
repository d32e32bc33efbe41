import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { webhookEndpoints, type WebhookEndpointRow } from '../../projections/webhook-endpoints.js';
import type { ProjectionQueries } from '../store/projection-queries.js';

export interface WebhookEndpointReadModels {
  /**
   * The endpoints not removed, of `suppliers` (every supplier's without it), by supplier then age. Bounded:
   * a supplier has at most MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER.
   */
  listWebhookEndpoints(suppliers?: readonly string[]): Promise<WebhookEndpointRow[]>;
  /** One endpoint, removed ones included (`removed`: the delivery engine sees it go); null when there never was one. */
  findWebhookEndpoint(id: string): Promise<WebhookEndpointRow | null>;
}

export function createWebhookEndpointReadModels(q: ProjectionQueries): WebhookEndpointReadModels {
  const e = webhookEndpoints;
  const byId = q.prepareOne(e, eq(e.id, sql.placeholder('id')));
  return {
    listWebhookEndpoints: (suppliers) =>
      suppliers !== undefined && suppliers.length === 0
        ? Promise.resolve([])
        : q.list(e, {
            // NOT reads the flag on both stores (SQLite's 0/1, PostgreSQL's boolean).
            where: and(sql`NOT ${e.removed}`, suppliers === undefined ? undefined : inArray(e.importSupplier, [...suppliers])),
            orderBy: [asc(e.importSupplier), asc(e.createdAt), asc(e.id)],
          }),
    findWebhookEndpoint: (id) => byId({ id }),
  };
}
