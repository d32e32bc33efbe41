import type { OpenAPIV3_1 } from 'openapi-types';
import { externalEventDefinitions, externalEventSchema, externalEventTypes } from '../../external-events/event-types.js';
import type { Schemas } from './common.js';

/** One webhook per type: its POST. */
export type Webhooks = Record<string, { readonly post: OpenAPIV3_1.OperationObject }>;

/** The tag the external events are listed under. */
export const EXTERNAL_EVENTS_TAG = 'External events';

/**
 * The document's `webhooks` (OpenAPI 3.1): one entry per external event type, the request the service sends
 * a receiver, its body `{type, timestamp, data}` with the type's schema (its `input` side, open to fields
 * added within a version, which a receiver ignores). The same events are read from `GET events/` (docs/events.md).
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
          requestBody: schemas.request(externalEventSchema(type), `The \`${type}\` event.`),
          responses: { '2XX': { description: 'Received: any 2xx acknowledges the event.' } },
        },
      },
    ]),
  );
}
