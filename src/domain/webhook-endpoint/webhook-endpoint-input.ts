import { z } from 'zod';
import { webhookEndpointStatuses } from '../../../events/webhook-endpoint.js';
import { isEventTypeFilter } from '../../external-events/catalogue.js';

/**
 * The webhook endpoint payloads, one definition for the API and the command line. Unknown fields are
 * refused (`unknown_field`): a misspelt setting must not pass as "nothing to change".
 */

/** The URL as given; the destination rules (https, public addresses) are checked when it is set. */
export const webhookUrlSchema = z.string().min(1).max(2048).describe('Where deliveries are POSTed: an `https` URL whose host resolves to public addresses only.');

/** Exact event types and `prefix.*` filters, at most 50; none (or empty): every type. */
export const webhookEventTypesSchema = z
  .array(
    z
      .string()
      .max(200)
      .refine(isEventTypeFilter, {
        message: 'Not an event type (`data_import.import_process.complete-v1`) or a prefix filter (`data_import.*`).',
        params: { code: 'invalid_event_type' },
      })
      .describe('A type of the catalogue (the `webhooks` of this document), or a `prefix.*` filter that matches at least one; anything else is `invalid_event_type`.'),
  )
  .max(50)
  .describe('Exact event types (`data_import.import_process.complete-v1`) and prefix filters (`data_import.*`); empty or absent: every type.');

export const webhookDescriptionSchema = z.string().max(500).nullable();

export const createWebhookEndpointRequestSchema = z.strictObject({
  import_supplier_code: z.string(),
  url: webhookUrlSchema,
  event_types: webhookEventTypesSchema.optional(),
  description: webhookDescriptionSchema.optional(),
});

export const changeWebhookEndpointRequestSchema = z
  .strictObject({
    url: webhookUrlSchema.optional(),
    event_types: webhookEventTypesSchema.optional(),
    description: webhookDescriptionSchema.optional(),
    status: z.enum(webhookEndpointStatuses).optional(),
  })
  .refine((change) => Object.values(change).some((value) => value !== undefined), {
    message: 'Give at least one of url, event_types, description, status.',
    params: { code: 'required' },
  });

/** rotate-secret/ and delete/ take an empty object: every POST of the API has a JSON body. */
export const emptyRequestSchema = z.strictObject({});

/** A replay from a time (RFC 3339, with its offset) or from a log position: exactly one of them. */
export const webhookReplayRequestSchema = z
  .strictObject({
    since: z.iso.datetime({ offset: true }).optional().describe('Deliver again from the first event recorded at or after this time.'),
    from_position: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe('Deliver again from this log position (the first delivered again).'),
  })
  .refine((replay) => (replay.since === undefined) !== (replay.from_position === undefined), {
    message: 'Give exactly one of since and from_position.',
    params: { code: 'required' },
  });
