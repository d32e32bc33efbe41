import { processAnswerFromEvents, stageAnswerFromEvents } from './account-import-processes.js';
import { historicalStatementsAnswerFromRequest, notesAnswerFromEvents, transactionsAnswerFromEvents } from './account-records.js';
import type { Answer, Events } from './answer.js';
import { businessAnswerFromEvents, businessContractsAnswerFromEvents } from './businesses.js';
import { businessPaymentInstructionAnswerFromEvents, paymentInstructionAnswerFromEvents } from './payment-instructions.js';
import { productsAnswerFromEvents } from './products.js';
import { populateAnswerFromEvents } from './supply-point-populate.js';
import { verificationAnswerFromEvents } from './verifications.js';
import { scheduledAnswerFromEvents } from './v2-accounts.js';
import { removedWebhookEndpointAnswerFromEvents, webhookReplayAnswerFromEvents, webhookSettingsAnswerFromEvents } from './webhook-endpoints.js';

type Recover = (request: unknown, events: Events, reservedAt: string) => Answer | null;

export const REBUILT_CONTENT_TYPE = 'application/json';

/**
 * For each POST that appends events: its answer rebuilt by its route's presenter from the request (a retry
 * carries the same body) and the events the first request appended. Recorded with the events, it answers a
 * retry whose first request committed but died before responding (test/hardening/idempotency.test.ts
 * simulates that crash for every entry).
 */
export const recoveries: Readonly<Record<string, Recover>> = {
  '/v1/data-import/account-import-process/create-or-update/': (_request, events) => stageAnswerFromEvents(events),
  '/v1/data-import/account-import-process/process/': (_request, events) => processAnswerFromEvents(events),
  '/v2/data-import/accounts/': (_request, events) => scheduledAnswerFromEvents(events),
  '/v1/data-import/products/': productsAnswerFromEvents,
  '/v1/data-import/business/': businessAnswerFromEvents,
  '/v1/data-import/supply-point/populate/': (_request, events) => populateAnswerFromEvents(events),
  '/v1/data-import/notes/create/': notesAnswerFromEvents,
  '/v1/data-import/transactions/create/': transactionsAnswerFromEvents,
  '/v1/data-import/historical-statements/create/': historicalStatementsAnswerFromRequest,
  '/v1/data-import/business-contracts/create/': (_request, events) => businessContractsAnswerFromEvents(events),
  '/v1/data-import/business-payment-instruction/create/': (_request, events) => businessPaymentInstructionAnswerFromEvents(events),
  '/v1/data-import/payment-instruction/create/': (_request, events) => paymentInstructionAnswerFromEvents(events),
  '/v1/data-import/verifications/': (_request, events) => verificationAnswerFromEvents(events),
};

/**
 * The same for the POSTs whose path names a resource (a webhook endpoint's id). Creating an endpoint and
 * rotating its secret have none: their answer shows a secret, which the log never holds (docs/webhooks.md).
 */
const recoveriesByPattern: readonly (readonly [RegExp, Recover])[] = [
  [/^\/v1\/data-import\/webhook-endpoints\/[^/]+\/$/, (_request, events) => webhookSettingsAnswerFromEvents(events)],
  [/^\/v1\/data-import\/webhook-endpoints\/[^/]+\/delete\/$/, (_request, events) => removedWebhookEndpointAnswerFromEvents(events)],
  [/^\/v1\/data-import\/webhook-endpoints\/[^/]+\/replay\/$/, (_request, events) => webhookReplayAnswerFromEvents(events)],
];

/** The way to rebuild a POST's answer on `requestPath`, or null when it has none. */
export function recoveryFor(requestPath: string): Recover | null {
  return (Object.hasOwn(recoveries, requestPath) ? recoveries[requestPath] : undefined) ?? recoveriesByPattern.find(([pattern]) => pattern.test(requestPath))?.[1] ?? null;
}

/** The answer a keyed request's events rebuild, as the store records it (`AnswerRebuilder`); null for a path without one. */
export function rebuildAnswer(requestPath: string, body: unknown, events: Events, reservedAt: string): { status: number; body: string; contentType: string } | null {
  const rebuilt = recoveryFor(requestPath)?.(body, events, reservedAt) ?? null;
  return rebuilt === null ? null : { status: rebuilt.status, body: JSON.stringify(rebuilt.body), contentType: REBUILT_CONTENT_TYPE };
}
