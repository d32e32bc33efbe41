import { Hono } from 'hono';
import { z } from 'zod';
import { addBusinessContracts } from '../../application/business-contracts.js';
import type { LedgerContext } from '../../application/context.js';
import { businessContractsPayloadSchema, validateBusinessContractsPayload } from '../../domain/business/business-contracts-payload.js';
import { businessFailedValidation } from '../../domain/business/decider.js';
import { httpActor, requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';
import { scopedBody } from './record-requests.js';

/** POST business-contracts/create/ (the platform's endpoint): contracts added to an existing business. */
export const createBusinessContractsRequestSchema = businessContractsPayloadSchema;
/** 201: the identifiers of the contracts added, in request order. */
export const createBusinessContractsResponseSchema = z.object({
  business_contracts: z.array(z.object({ identifier: z.string() })),
});

/** The 201 body for the contracts a request added. */
export function businessContractsResponse(identifiers: readonly string[]): z.input<typeof createBusinessContractsResponseSchema> {
  return { business_contracts: identifiers.map((identifier) => ({ identifier })) };
}

export function businessContractRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>().post('/business-contracts/create/', async (c) => {
    // Scope first (403 before any detail of the payload is revealed), then the contract rules, then the business.
    const validation = validateBusinessContractsPayload(await scopedBody(c, 'import_supplier_code'));
    if (!validation.ok) throw businessFailedValidation(validation.errors);
    requireSupplierScope(c, validation.data.import_supplier_code);
    const identifiers = await addBusinessContracts(ctx, validation.data, httpActor(c));
    return c.json(businessContractsResponse(identifiers), 201);
  });
}
