import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { webhookDisabledReasons, webhookEndpointStatuses } from '../events/webhook-endpoint.js';
import { defineProjection } from './projection.js';

/**
 * Webhook endpoints with their settings, as the API, the CLI and the delivery engine read them. A removed
 * endpoint keeps its row (`removed`), so that the engine sees it go. `replaySeq` counts the replays asked
 * for, the latest from `replayFromPosition` (the first log position delivered again). Never the secrets.
 */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    importSupplier: text('import_supplier').notNull(),
    url: text('url').notNull(),
    /** The event type filters: exact names and `prefix.*`; empty: every type. */
    eventTypes: text('event_types', { mode: 'json' }).$type<string[]>().notNull(),
    description: text('description'),
    status: text('status', { enum: webhookEndpointStatuses }).notNull(),
    disabledReason: text('disabled_reason', { enum: webhookDisabledReasons }),
    disabledDetail: text('disabled_detail'),
    disabledAt: text('disabled_at'),
    currentSecretId: text('current_secret_id').notNull(),
    replaySeq: integer('replay_seq').notNull(),
    replayFromPosition: integer('replay_from_position'),
    /** The log position of its creation: deliveries start after it, whenever the relay first runs. */
    createdPosition: integer('created_position').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    removed: integer('removed', { mode: 'boolean' }).notNull(),
  },
  (t) => [index('webhook_endpoints_supplier_idx').on(t.importSupplier, t.id)],
);
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

export const webhookEndpointsProjection = defineProjection(webhookEndpoints)({
  name: 'webhook_endpoints',
  version: 1,
  keyOf: ({ event }) => ({ id: event.data.endpointId }),
  evolve: {
    WebhookEndpointCreated: (_row, { event, globalPosition }) => ({
      id: event.data.endpointId,
      importSupplier: event.data.importSupplier,
      url: event.data.url,
      eventTypes: [...event.data.eventTypes],
      description: event.data.description,
      status: 'enabled',
      disabledReason: null,
      disabledDetail: null,
      disabledAt: null,
      currentSecretId: event.data.secretId,
      replaySeq: 0,
      replayFromPosition: null,
      createdPosition: globalPosition,
      createdAt: event.data.createdAt,
      updatedAt: event.data.createdAt,
      removed: false,
    }),
    WebhookEndpointChanged: (row, { event }) =>
      row && {
        ...row,
        url: event.data.url,
        eventTypes: [...event.data.eventTypes],
        description: event.data.description,
        status: event.data.status,
        disabledReason: event.data.disabledReason,
        disabledDetail: event.data.disabledDetail,
        disabledAt: event.data.disabledAt,
        updatedAt: event.data.changedAt,
      },
    WebhookEndpointSecretRotated: (row, { event }) => row && { ...row, currentSecretId: event.data.secretId, updatedAt: event.data.rotatedAt },
    WebhookEndpointRemoved: (row, { event }) => row && { ...row, removed: true, updatedAt: event.data.removedAt },
    WebhookEndpointReplayRequested: (row, { event }) =>
      row && { ...row, replaySeq: row.replaySeq + 1, replayFromPosition: event.data.fromPosition, updatedAt: event.data.requestedAt },
  },
});
