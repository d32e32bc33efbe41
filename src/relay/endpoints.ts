import { disableWebhookEndpoint } from '../application/webhook-endpoints.js';
import type { Actor } from '../application/context.js';
import type { Ledger } from '../ledger.js';
import type { WebhookEndpointsPort } from './relays.js';
import { lookupFor, urlRefusal, type DestinationPolicy } from './webhooks/destination.js';

/** The webhook endpoints resource as the relays use it: the ledger's read models, secrets and delivery log. */
export function ledgerWebhookEndpoints(ledger: Ledger, policy: DestinationPolicy, actor: Actor): WebhookEndpointsPort {
  return {
    list: () => ledger.read.listWebhookEndpoints(),
    signingSecrets: (endpointId, nowMs) => ledger.webhookSecrets.signingSecrets(endpointId, new Date(nowMs)),
    recordAttempts: (attempts) => ledger.webhookAttempts.record(attempts),
    disable: async (endpointId, reason, detail) => {
      await disableWebhookEndpoint(ledger, endpointId, reason, detail, actor);
    },
    batchSuppliers: async (batchId) => (await ledger.read.findPopulateBatch(batchId))?.importSuppliers ?? [],
    lookup: lookupFor(policy),
    refusal: (url) => urlRefusal(url, policy)?.detail ?? null,
  };
}
