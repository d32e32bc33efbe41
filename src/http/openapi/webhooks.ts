import type { OpenAPIV3_1 } from 'openapi-types';
import { externalEventDefinitions, externalEventSchema, externalEventTypes } from '../../external-events/event-types.js';
import type { Schemas } from './common.js';

/** One webhook per type: its POST. */
export type Webhooks = Record<string, { readonly post: OpenAPIV3_1.OperationObject }>;

/** The tag the external events are listed under. */
export const EXTERNAL_EVENTS_TAG = 'External events';

/** The Standard Webhooks headers of every delivery (docs/webhooks.md "Verifying a delivery"). */
const DELIVERY_HEADERS: OpenAPIV3_1.ParameterObject[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The event's id: the same on every retry and replay of the event to the endpoint (dedupe by it). The NATS relay's Nats-Msg-Id.",
    schema: { type: 'string' },
  },
  { name: 'webhook-timestamp', in: 'header', required: true, description: "This attempt's time, in seconds since the epoch.", schema: { type: 'string', pattern: '^[0-9]+$' } },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` under the endpoint\'s secret (the base64 after `whsec_`); during a rotation, space separated, one under the new secret and one under the old.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
];

/**
 * The document's `webhooks` (OpenAPI 3.1): one entry per external event type, the request the service sends
 * a receiver, signed (its headers), its body `{type, timestamp, data}` with the type's schema (its `input`
 * side, open to fields added within a version, which a receiver ignores). The same events are read from
 * `GET events/` and the NATS stream (docs/events.md).
 */
export function externalEventWebhooks(schemas: Schemas): Webhooks {
  return Object.fromEntries(
    externalEventTypes.map((type) => [
      type,
      {
        post: {
          operationId: `externalEvent.${type}`,
          tags: [EXTERNAL_EVENTS_TAG],
          summary: type,
          description: `${externalEventDefinitions[type].description} Never a customer's personal data: a receiver that needs it asks the API with a key.`,
          // Sent by the service, not called with a token: the receiver authenticates the sender otherwise.
          security: [],
          parameters: DELIVERY_HEADERS,
          requestBody: schemas.request(externalEventSchema(type), `The \`${type}\` event.`),
          responses: { '2XX': { description: 'Received: any 2xx acknowledges the event.' } },
        },
      },
    ]),
  );
}
