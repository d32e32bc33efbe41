import { z } from 'zod';
import { eventSchema, type EventsOf } from './envelope.js';

export const webhookEndpointStreamId = (endpointId: string): string => `webhook-endpoint:${endpointId}`;

export const webhookEndpointStatuses = ['enabled', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof webhookEndpointStatuses)[number];

/**
 * Why an endpoint is disabled: an operator (or a caller's key) said so, the receiver answered 410 Gone, or
 * its deliveries kept failing for longer than the service allows.
 */
export const webhookDisabledReasons = ['operator', 'gone', 'failing'] as const;
export type WebhookDisabledReason = (typeof webhookDisabledReasons)[number];

/** The settings a change can touch, as `WebhookEndpointChanged.changes` names them. */
export const webhookEndpointSettings = ['url', 'eventTypes', 'description', 'status'] as const;

/**
 * A webhook endpoint was registered for an import supplier: where its deliveries go and which external
 * event types it receives (none: every type; `prefix.*`: every type under the prefix). `secretId` names
 * the signing secret, which is kept outside the log (auditors read the log): the secret itself never is here.
 */
export const webhookEndpointCreatedSchema = eventSchema(
  'WebhookEndpointCreated',
  1,
  z.object({
    endpointId: z.string(),
    importSupplier: z.string(),
    url: z.string(),
    eventTypes: z.array(z.string()),
    description: z.string().nullable(),
    secretId: z.string(),
    createdAt: z.string(),
  }),
);

/**
 * The endpoint's settings changed: `changes` names what changed, and the event states every setting as it
 * is from then on. A disabled endpoint names why (`disabledReason`), with the delivery engine's detail for
 * `gone` and `failing` (the last answer, how long it failed), and since when; an enabled one names none.
 * Disabling keeps every event for the endpoint: once enabled again, delivery resumes where it stopped.
 */
export const webhookEndpointChangedSchema = eventSchema(
  'WebhookEndpointChanged',
  1,
  z.object({
    endpointId: z.string(),
    importSupplier: z.string(),
    changes: z.array(z.enum(webhookEndpointSettings)),
    url: z.string(),
    eventTypes: z.array(z.string()),
    description: z.string().nullable(),
    status: z.enum(webhookEndpointStatuses),
    disabledReason: z.enum(webhookDisabledReasons).nullable(),
    disabledDetail: z.string().nullable(),
    disabledAt: z.string().nullable(),
    changedAt: z.string(),
  }),
);

/**
 * The endpoint signs with a new secret (`secretId`) from now on; the previous one keeps signing beside it
 * until `previousSecretExpiresAt`, so receivers can move to the new one without missing a delivery.
 */
export const webhookEndpointSecretRotatedSchema = eventSchema(
  'WebhookEndpointSecretRotated',
  1,
  z.object({
    endpointId: z.string(),
    importSupplier: z.string(),
    secretId: z.string(),
    previousSecretId: z.string(),
    previousSecretExpiresAt: z.string(),
    rotatedAt: z.string(),
  }),
);

/** The endpoint was removed: nothing is delivered to it any more, and it takes no further change. */
export const webhookEndpointRemovedSchema = eventSchema(
  'WebhookEndpointRemoved',
  1,
  z.object({ endpointId: z.string(), importSupplier: z.string(), removedAt: z.string() }),
);

/**
 * The endpoint's events are to be delivered again from log position `fromPosition` on (the first position
 * delivered again), as its filter selects them; `since` is the time the caller gave, when it gave one.
 */
export const webhookEndpointReplayRequestedSchema = eventSchema(
  'WebhookEndpointReplayRequested',
  1,
  z.object({
    endpointId: z.string(),
    importSupplier: z.string(),
    fromPosition: z.int().min(1),
    since: z.string().nullable(),
    requestedAt: z.string(),
  }),
);

export const webhookEndpointEventSchemas = [
  webhookEndpointCreatedSchema,
  webhookEndpointChangedSchema,
  webhookEndpointSecretRotatedSchema,
  webhookEndpointRemovedSchema,
  webhookEndpointReplayRequestedSchema,
] as const;

export type WebhookEndpointEvent = EventsOf<typeof webhookEndpointEventSchemas>;
export type WebhookEndpointChanged = z.infer<typeof webhookEndpointChangedSchema>;
