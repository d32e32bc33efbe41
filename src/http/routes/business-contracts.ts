import { Hono } from 'hono';
import { businessContractsAnswer } from '../../answers/businesses.js';
import { addBusinessContracts } from '../../application/business-contracts.js';
import type { LedgerContext } from '../../application/context.js';
import { businessContractsPayloadSchema, validateBusinessContractsPayload } from '../../domain/business/business-contracts-payload.js';
import { businessFailedValidation } from '../../domain/business/decider.js';
import { answer } from '../answer.js';
import { httpActor, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { validated } from '../validation.js';

/** POST business-contracts/create/ (the platform's endpoint): contracts added to an existing business. */
export const createBusinessContractsRequestSchema = businessContractsPayloadSchema;

export function businessContractRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>().post('/business-contracts/create/', async (c) => {
    // Scope first (403 before any detail of the payload is revealed), then the contract rules, then the business.
    const payload = validated(await scopedBody(c, 'import_supplier_code'), validateBusinessContractsPayload, businessFailedValidation);
    const identifiers = await addBusinessContracts(ctx, payload, httpActor(c));
    return answer(c, businessContractsAnswer(identifiers));
  });
}
