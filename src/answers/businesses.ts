import { z } from 'zod';
import { validateBusinessPayload } from '../domain/business/business-payload.js';
import { ofType, type Answer, type Events } from './answer.js';

/** 201, for a new business and for the same business sent again (spec 2.4). */
export const createBusinessResponseSchema = z.object({
  platform_business_id: z.int(),
  external_business_identifier: z.string(),
});

/** The 201 body for the contracts a request added, in request order. */
export const createBusinessContractsResponseSchema = z.object({
  business_contracts: z.array(z.object({ identifier: z.string() })),
});

export function businessAnswer(created: { platformBusinessId: number; externalBusinessIdentifier: string }): Answer<z.input<typeof createBusinessResponseSchema>> {
  return { status: 201, body: { platform_business_id: created.platformBusinessId, external_business_identifier: created.externalBusinessIdentifier } };
}

export function businessAnswerFromEvents(request: unknown, events: Events): Answer | null {
  const payload = validateBusinessPayload(request);
  const created = ofType(events, 'BusinessCreated')[0];
  if (!payload.ok || !created) return null;
  return businessAnswer({ platformBusinessId: created.globalPosition, externalBusinessIdentifier: payload.data.external_business_identifier });
}

export function businessContractsAnswer(identifiers: readonly string[]): Answer<z.input<typeof createBusinessContractsResponseSchema>> {
  return { status: 201, body: { business_contracts: identifiers.map((identifier) => ({ identifier })) } };
}

export function businessContractsAnswerFromEvents(events: Events): Answer | null {
  const added = ofType(events, 'BusinessContractAdded').map((stored) => stored.event.data.identifier);
  return added.length > 0 ? businessContractsAnswer(added) : null;
}
