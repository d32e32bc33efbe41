import { Hono } from 'hono';
import { businessAnswer, businessContractsAnswer } from '../../answers/businesses.js';
import { addBusinessContracts } from '../../application/business-contracts.js';
import { createBusiness } from '../../application/businesses.js';
import type { LedgerContext } from '../../application/context.js';
import { businessContractsPayloadSchema, validateBusinessContractsPayload } from '../../domain/business/business-contracts-payload.js';
import { businessPayloadSchema, validateBusinessPayload } from '../../domain/business/business-payload.js';
import { businessFailedValidation } from '../../domain/business/decider.js';
import { answer } from '../answer.js';
import { httpActor, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { validated } from '../validation.js';

/** POST business/ (spec 4.4): the business with all its contracts. */
export const createBusinessRequestSchema = businessPayloadSchema;

/** POST business-contracts/create/ (the platform's endpoint): contracts added to an existing business. */
export const createBusinessContractsRequestSchema = businessContractsPayloadSchema;

/** Each one scope first (403 before any detail of the payload is revealed), then the payload's rules, then the business. */
export function businessRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>()
    .post('/business/', async (c) => {
      const payload = validated(await scopedBody(c, 'import_supplier_code'), validateBusinessPayload, businessFailedValidation);
      const result = await createBusiness(ctx, payload, httpActor(c));
      return answer(c, businessAnswer({ platformBusinessId: result.platformBusinessId, externalBusinessIdentifier: payload.external_business_identifier }));
    })
    .post('/business-contracts/create/', async (c) => {
      const payload = validated(await scopedBody(c, 'import_supplier_code'), validateBusinessContractsPayload, businessFailedValidation);
      return answer(c, businessContractsAnswer(await addBusinessContracts(ctx, payload, httpActor(c))));
    });
}
