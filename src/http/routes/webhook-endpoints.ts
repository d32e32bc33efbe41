import { Hono, type Context } from 'hono';
import { z } from 'zod';
import {
  createdWebhookEndpointAnswer,
  deliveryView,
  endpointView,
  removedWebhookEndpointAnswer,
  rotatedWebhookSecretAnswer,
  webhookReplayAnswer,
  webhookSettingsAnswer,
} from '../../answers/webhook-endpoints.js';
import {
  changeWebhookEndpoint,
  createWebhookEndpoint,
  findScopedWebhookEndpoint,
  removeWebhookEndpoint,
  requestWebhookEndpointReplay,
  rotateWebhookEndpointSecret,
  type WebhookContext,
  webhookDeliveryStates,
} from '../../application/webhook-endpoints.js';
import {
  changeWebhookEndpointRequestSchema,
  createWebhookEndpointRequestSchema,
  emptyRequestSchema,
  webhookReplayRequestSchema,
} from '../../domain/webhook-endpoint/webhook-endpoint-input.js';
import type { RelayStore } from '../../store/relay-store.js';
import type { WebhookAttempts } from '../../store/webhook-storage.js';
import { answer } from '../answer.js';
import { httpActor, requireSupplierScope, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { parseQuery } from '../query.js';
import { bySchema, validated } from '../validation.js';

export const MAX_DELIVERIES_LIMIT = 1_000;
export const DEFAULT_DELIVERIES_LIMIT = 100;

/** GET webhook-endpoints/: every endpoint of the key's suppliers, or of the one named. */
export const webhookEndpointListQuerySchema = z.object({ import_supplier_code: z.string().optional().describe('Only this supplier\'s endpoints (403 outside the key\'s scope).') });

/** GET webhook-endpoints/<id>/deliveries/: newest first, `before` the last id of the previous page (its `Link` header gives it). */
export const webhookDeliveriesQuerySchema = z.object({
  status: z.enum(['failed']).optional().describe('`failed`: only the failed attempts.'),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, { message: `limit must be a whole number from 1 to ${MAX_DELIVERIES_LIMIT}.` })
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_DELIVERIES_LIMIT, { message: `limit must be a whole number from 1 to ${MAX_DELIVERIES_LIMIT}.` })
    .optional()
    .describe(`Attempts per page, 1 to ${MAX_DELIVERIES_LIMIT} (${DEFAULT_DELIVERIES_LIMIT} by default).`),
  before: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, { message: 'before must be an attempt id from a Link header of this list.' })
    .transform(Number)
    .optional()
    .describe('Only attempts older than this one: the cursor of the `Link` header.'),
});

/**
 * Webhook endpoints (docs/webhooks.md), scoped like every resource: a body naming a supplier outside the
 * key's scope is 403 before anything else; an endpoint of another supplier is 404, as one that does not exist.
 */
export function webhookEndpointRoutes(ctx: WebhookContext & { readonly webhookAttempts: WebhookAttempts; readonly relays: RelayStore }) {
  const owned = (c: Context<AppEnv>, id: string) => findScopedWebhookEndpoint(ctx, id, c.get('principal').suppliers);
  return new Hono<AppEnv>()
    .post('/webhook-endpoints/', async (c) => {
      const body = validated(await scopedBody(c, 'import_supplier_code'), bySchema(createWebhookEndpointRequestSchema));
      const created = await createWebhookEndpoint(
        ctx,
        { importSupplier: body.import_supplier_code, url: body.url, eventTypes: body.event_types ?? [], description: body.description ?? null },
        httpActor(c),
      );
      return answer(c, createdWebhookEndpointAnswer(created));
    })
    .get('/webhook-endpoints/', async (c) => {
      const { import_supplier_code: supplier } = parseQuery(c, webhookEndpointListQuerySchema);
      if (supplier !== undefined) requireSupplierScope(c, supplier);
      const rows = await ctx.read.listWebhookEndpoints(supplier === undefined ? c.get('principal').suppliers : [supplier]);
      const states = await webhookDeliveryStates(ctx, rows.map((row) => row.id));
      return c.json(rows.map((row) => endpointView(row, states.get(row.id)!)), 200);
    })
    .get('/webhook-endpoints/:id/', async (c) => {
      const row = await owned(c, c.req.param('id'));
      const states = await webhookDeliveryStates(ctx, [row.id]);
      return c.json(endpointView(row, states.get(row.id)!), 200);
    })
    .post('/webhook-endpoints/:id/', async (c) => {
      const { id } = await owned(c, c.req.param('id'));
      const body = validated(await c.req.json(), bySchema(changeWebhookEndpointRequestSchema));
      const settings = await changeWebhookEndpoint(
        ctx,
        id,
        {
          ...(body.url !== undefined ? { url: body.url } : {}),
          ...(body.event_types !== undefined ? { eventTypes: body.event_types } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.status !== undefined ? { status: body.status } : {}),
        },
        httpActor(c),
      );
      return answer(c, webhookSettingsAnswer(settings));
    })
    .post('/webhook-endpoints/:id/delete/', async (c) => {
      const { id } = await owned(c, c.req.param('id'));
      validated(await c.req.json(), bySchema(emptyRequestSchema));
      await removeWebhookEndpoint(ctx, id, httpActor(c));
      return answer(c, removedWebhookEndpointAnswer(id));
    })
    .post('/webhook-endpoints/:id/rotate-secret/', async (c) => {
      const { id } = await owned(c, c.req.param('id'));
      validated(await c.req.json(), bySchema(emptyRequestSchema));
      return answer(c, rotatedWebhookSecretAnswer(id, await rotateWebhookEndpointSecret(ctx, id, httpActor(c))));
    })
    .get('/webhook-endpoints/:id/deliveries/', async (c) => {
      const { id } = await owned(c, c.req.param('id'));
      const query = parseQuery(c, webhookDeliveriesQuerySchema);
      const limit = query.limit ?? DEFAULT_DELIVERIES_LIMIT;
      const failedOnly = query.status === 'failed';
      const attempts = await ctx.webhookAttempts.list(id, { failedOnly, limit, ...(query.before !== undefined ? { before: query.before } : {}) });
      const last = attempts.at(-1);
      if (attempts.length === limit && last) {
        const path = new URL(c.req.url).pathname;
        c.header('Link', `<${path}?${failedOnly ? 'status=failed&' : ''}limit=${limit}&before=${last.id}>; rel="next"`);
      }
      return c.json(attempts.map(deliveryView), 200);
    })
    .post('/webhook-endpoints/:id/replay/', async (c) => {
      const { id } = await owned(c, c.req.param('id'));
      const body = validated(await c.req.json(), bySchema(webhookReplayRequestSchema));
      // The schema admits exactly one of the two.
      const from = body.since !== undefined ? { since: new Date(body.since) } : { fromPosition: body.from_position ?? 1 };
      const { fromPosition } = await requestWebhookEndpointReplay(ctx, id, from, httpActor(c));
      return answer(c, webhookReplayAnswer(id, fromPosition));
    });
}
