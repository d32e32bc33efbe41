import { z } from 'zod';
import { webhookDisabledReasons, webhookEndpointStatuses } from '../../events/webhook-endpoint.js';
import type { WebhookEndpointRow } from '../../projections/webhook-endpoints.js';
import type { WebhookEndpointSettings } from '../domain/webhook-endpoint/decider.js';
import { ofType, type Answer, type Events } from './answer.js';

/** An endpoint's settings: what a change answers, and the first part of every endpoint view. */
export const webhookEndpointSettingsSchema = z.object({
  id: z.string(),
  import_supplier_code: z.string(),
  url: z.string(),
  event_types: z.array(z.string()).describe('Exact event types and `prefix.*` filters; empty: every type.'),
  description: z.string().nullable(),
  status: z.enum(webhookEndpointStatuses),
  disabled_reason: z.enum(webhookDisabledReasons).nullable().describe('`operator` (a key or the CLI), `gone` (the receiver answered 410), `failing` (failing for too long); null while enabled.'),
  disabled_detail: z.string().nullable(),
  disabled_at: z.string().nullable(),
});

export const webhookDeliverySchema = z.object({
  id: z.int(),
  message_id: z.string().describe('The `webhook-id` header of the delivery: the same for every attempt and replay of one event.'),
  event_type: z.string(),
  position: z.int(),
  attempt: z.int(),
  status_code: z.int().nullable(),
  duration_ms: z.int(),
  error: z.string().nullable(),
  outcome: z.enum(['delivered', 'failed']),
  attempted_at: z.string(),
});
export const webhookDeliveryListSchema = z.array(webhookDeliverySchema);

/** Where an endpoint's deliveries stand (what the endpoint reads show, and the dashboard). */
export interface WebhookDeliveryState {
  /** The log position delivered (or parked) through; null before the endpoint's relay first ran. */
  readonly position: number | null;
  /** Events in the log after `position` (events its filter leaves out included). */
  readonly lagEvents: number;
  /** Messages waiting for a retry while the others go on. */
  readonly waiting: number;
  readonly lastFailure: DeliveryAttempt | null;
}

export const webhookDeliveryStateSchema = z.object({
  position: z.int().nullable().describe('The log position delivered (or kept for a retry) through; null until deliveries first ran.'),
  lag_events: z.int().describe('Events in the log after `position` (events the filter leaves out included).'),
  waiting: z.int().describe("Events kept for a retry (a failing account's) while the others go on."),
  last_failure: webhookDeliverySchema.nullable().describe('The latest failed attempt still in the delivery log.'),
});

/** An endpoint as listed and read, with where its deliveries stand. Never its secret. */
export const webhookEndpointSchema = webhookEndpointSettingsSchema.extend({ created_at: z.string(), updated_at: z.string(), delivery: webhookDeliveryStateSchema });
export const webhookEndpointListSchema = z.array(webhookEndpointSchema);

/** 201 of create: the signing secret, shown this once. */
export const createdWebhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  import_supplier_code: z.string(),
  event_types: z.array(z.string()),
  description: z.string().nullable(),
  status: z.enum(webhookEndpointStatuses),
  secret: z.string().describe('`whsec_` and the base64 of 32 random bytes: shown only in this answer.'),
  created_at: z.string(),
});

/** 201 of rotate-secret: the new secret, shown this once, and when the previous one stops signing. */
export const rotatedWebhookSecretSchema = z.object({ id: z.string(), secret: z.string(), previous_secret_expires_at: z.string() });
export const removedWebhookEndpointSchema = z.object({ id: z.string(), deleted: z.literal(true) });
/** 202 of replay: the first log position delivered again. */
export const webhookReplaySchema = z.object({ id: z.string(), from_position: z.int() });

type Settings = z.input<typeof webhookEndpointSettingsSchema>;

export function settingsView(s: WebhookEndpointSettings): Settings {
  return {
    id: s.endpointId,
    import_supplier_code: s.importSupplier,
    url: s.url,
    event_types: [...s.eventTypes],
    description: s.description,
    status: s.status,
    disabled_reason: s.disabledReason,
    disabled_detail: s.disabledDetail,
    disabled_at: s.disabledAt,
  };
}

/** An endpoint as listed and read (the API's and the CLI's `--json`). */
export const endpointView = (row: WebhookEndpointRow, delivery: WebhookDeliveryState): z.input<typeof webhookEndpointSchema> => ({
  ...settingsView({ ...row, endpointId: row.id }),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  delivery: {
    position: delivery.position,
    lag_events: delivery.lagEvents,
    waiting: delivery.waiting,
    last_failure: delivery.lastFailure ? deliveryView(delivery.lastFailure) : null,
  },
});

/** A recorded delivery attempt (the delivery log's row). */
export interface DeliveryAttempt {
  readonly id: number;
  readonly messageId: string;
  readonly eventType: string;
  readonly position: number;
  readonly attempt: number;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly outcome: 'delivered' | 'failed';
  readonly attemptedAt: string;
}

export const deliveryView = (a: DeliveryAttempt): z.input<typeof webhookDeliverySchema> => ({
  id: a.id,
  message_id: a.messageId,
  event_type: a.eventType,
  position: a.position,
  attempt: a.attempt,
  status_code: a.statusCode,
  duration_ms: a.durationMs,
  error: a.error,
  outcome: a.outcome,
  attempted_at: a.attemptedAt,
});

export const webhookSettingsAnswer = (settings: WebhookEndpointSettings): Answer<Settings> => ({ status: 200, body: settingsView(settings) });

/** A change's answer from its event (the settings it states); none when the change recorded nothing. */
export function webhookSettingsAnswerFromEvents(events: Events): Answer | null {
  const changed = ofType(events, 'WebhookEndpointChanged').at(-1);
  if (!changed) return null;
  const { changes: _changes, changedAt: _changedAt, ...settings } = changed.event.data;
  return webhookSettingsAnswer(settings);
}

export function createdWebhookEndpointAnswer(created: WebhookEndpointSettings & { createdAt: string; secret: string }): Answer<z.input<typeof createdWebhookEndpointSchema>> {
  return {
    status: 201,
    body: {
      id: created.endpointId,
      url: created.url,
      import_supplier_code: created.importSupplier,
      event_types: [...created.eventTypes],
      description: created.description,
      status: created.status,
      secret: created.secret,
      created_at: created.createdAt,
    },
  };
}

export const rotatedWebhookSecretAnswer = (id: string, rotated: { secret: string; previousSecretExpiresAt: string }): Answer<z.input<typeof rotatedWebhookSecretSchema>> => ({
  status: 201,
  body: { id, secret: rotated.secret, previous_secret_expires_at: rotated.previousSecretExpiresAt },
});

export const removedWebhookEndpointAnswer = (id: string): Answer<z.input<typeof removedWebhookEndpointSchema>> => ({ status: 200, body: { id, deleted: true } });

export function removedWebhookEndpointAnswerFromEvents(events: Events): Answer | null {
  const removed = ofType(events, 'WebhookEndpointRemoved')[0];
  return removed ? removedWebhookEndpointAnswer(removed.event.data.endpointId) : null;
}

export const webhookReplayAnswer = (id: string, fromPosition: number): Answer<z.input<typeof webhookReplaySchema>> => ({ status: 202, body: { id, from_position: fromPosition } });

export function webhookReplayAnswerFromEvents(events: Events): Answer | null {
  const requested = ofType(events, 'WebhookEndpointReplayRequested')[0];
  return requested ? webhookReplayAnswer(requested.event.data.endpointId, requested.event.data.fromPosition) : null;
}
