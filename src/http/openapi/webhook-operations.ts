import type { z } from 'zod';
import {
  createdWebhookEndpointSchema,
  removedWebhookEndpointSchema,
  rotatedWebhookSecretSchema,
  webhookDeliveryListSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointSettingsSchema,
  webhookReplaySchema,
} from '../../answers/webhook-endpoints.js';
import type { ErrorCode } from '../../domain/error-codes.js';
import { MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER } from '../../domain/webhook-endpoint/decider.js';
import {
  changeWebhookEndpointRequestSchema,
  createWebhookEndpointRequestSchema,
  emptyRequestSchema,
  webhookReplayRequestSchema,
} from '../../domain/webhook-endpoint/webhook-endpoint-input.js';
import { MAX_DELIVERIES_LIMIT, webhookDeliveriesQuerySchema, webhookEndpointListQuerySchema } from '../routes/webhook-endpoints.js';
import { WRITE_ERRORS } from './common.js';

type Json = [schema: z.ZodType, description: string];

/** One webhook operation as operations.ts's `operation` takes it; `write`: a write answered 200 (its guarantees are told). */
export interface WebhookOperation {
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly request?: Json;
  readonly ok?: Json;
  readonly created?: Json;
  readonly accepted?: Json;
  readonly query?: z.ZodObject;
  readonly anyKey?: true;
  readonly write?: true;
  readonly errors?: readonly ErrorCode[];
}

/** An endpoint named by its id: another supplier's is 404, as one that does not exist (never 403). */
const BY_ID = ['webhook_endpoint_not_found'] as const satisfies readonly ErrorCode[];
const URL_RULES =
  'The URL must be `https` and its host resolve to public addresses only (400 `webhook_url_refused`, the item\'s code saying why: `invalid_url`, `https_required`, `private_address`, `unresolvable_host`), unless the service runs with `LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`.';

/** The webhook endpoint operations (docs/webhooks.md). */
export function webhookOperations(v1: string): WebhookOperation[] {
  const base = `${v1}/webhook-endpoints`;
  const byIdWrite = [...WRITE_ERRORS, 'validation_error', ...BY_ID] as const;
  return [
    {
      path: `${base}/`, operationId: 'createWebhookEndpoint', summary: 'Register a webhook endpoint',
      description: `An endpoint of the supplier that receives the external events its \`event_types\` select, signed with its secret (Standard Webhooks). The secret is in this answer only. At most ${MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER} endpoints a supplier. ${URL_RULES} Retried after a lost answer, a create cannot show its secret again (409 \`idempotency_response_lost\`): list the endpoints and rotate its secret.`,
      request: [createWebhookEndpointRequestSchema, 'The supplier, the URL, and optionally the event types and a description.'],
      created: [createdWebhookEndpointSchema, 'Registered, enabled.'],
      errors: ['validation_error', 'webhook_url_refused', 'webhook_endpoint_limit_reached', 'import_supplier_not_found'],
    },
    {
      path: `${base}/`, operationId: 'listWebhookEndpoints', summary: 'The webhook endpoints',
      description: `The endpoints of the key's suppliers (or of the one \`import_supplier_code\` names), by supplier then age; never their secrets. Not paged: a supplier has at most ${MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER}.`,
      query: webhookEndpointListQuerySchema, ok: [webhookEndpointListSchema, 'The endpoints.'],
    },
    {
      path: `${base}/:id/`, operationId: 'readWebhookEndpoint', summary: 'A webhook endpoint',
      description: 'Its settings and status: when disabled, why (`operator`, `gone`: the receiver answered 410, `failing`: it failed for too long), since when, and what the delivery engine saw.',
      ok: [webhookEndpointSchema, 'The endpoint.'], anyKey: true, errors: BY_ID,
    },
    {
      path: `${base}/:id/`, operationId: 'changeWebhookEndpoint', summary: 'Change a webhook endpoint',
      description: `Changes the settings given (\`status\` \`enabled\` or \`disabled\`, \`event_types\`, \`description\`, \`url\`); the others stay. Enabling a disabled endpoint resumes delivery where it stopped: no event is dropped while it is disabled. ${URL_RULES}`,
      request: [changeWebhookEndpointRequestSchema, 'The settings to change.'], ok: [webhookEndpointSettingsSchema, 'The settings as they are now.'],
      anyKey: true, write: true, errors: [...byIdWrite, 'webhook_url_refused'],
    },
    {
      path: `${base}/:id/delete/`, operationId: 'deleteWebhookEndpoint', summary: 'Remove a webhook endpoint',
      description: 'Nothing more is delivered to it, and its secrets are forgotten. The body is `{}`.',
      request: [emptyRequestSchema, 'An empty object.'], ok: [removedWebhookEndpointSchema, 'Removed.'], anyKey: true, write: true, errors: byIdWrite,
    },
    {
      path: `${base}/:id/rotate-secret/`, operationId: 'rotateWebhookEndpointSecret', summary: "Rotate a webhook endpoint's secret",
      description: 'A new secret, in this answer only; deliveries carry a signature with each of the two secrets until `previous_secret_expires_at` (24 hours), so receivers can switch without missing one. The body is `{}`.',
      request: [emptyRequestSchema, 'An empty object.'], created: [rotatedWebhookSecretSchema, 'The new secret.'], anyKey: true, errors: byIdWrite,
    },
    {
      path: `${base}/:id/deliveries/`, operationId: 'webhookDeliveries', summary: "A webhook endpoint's delivery attempts",
      description: `Every attempt, newest first, with the receiver's status code (null when none came), how long it took and the error; \`?status=failed\` keeps the failed ones. \`?limit=\` (1 to ${MAX_DELIVERIES_LIMIT}) pages it; the next page's address comes in the \`Link\` header. Attempts are kept for LEDGER_WEBHOOK_ATTEMPT_RETENTION_DAYS (7 days by default).`,
      query: webhookDeliveriesQuerySchema, ok: [webhookDeliveryListSchema, 'The attempts, newest first.'], anyKey: true, errors: BY_ID,
    },
    {
      path: `${base}/:id/replay/`, operationId: 'replayWebhookEndpoint', summary: 'Deliver events again',
      description: "Delivers again what the endpoint's filter selects from a log position: `from_position`, or the first event recorded at or after `since` (RFC 3339). The answer names the position; the delivery itself happens after it. A replayed event keeps its `webhook-id`.",
      request: [webhookReplayRequestSchema, 'Exactly one of `since` and `from_position`.'], accepted: [webhookReplaySchema, 'The replay is recorded.'],
      anyKey: true, errors: byIdWrite,
    },
  ];
}
