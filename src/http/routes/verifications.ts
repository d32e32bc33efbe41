import { Hono } from 'hono';
import { z } from 'zod';
import { verificationCountsSchema } from '../../../events/import-supplier.js';
import { verificationAnswer } from '../../answers/verifications.js';
import type { LedgerContext } from '../../application/context.js';
import { recordVerification } from '../../application/verifications.js';
import { answer } from '../answer.js';
import { httpActor, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { bySchema, validated } from '../validation.js';

/**
 * POST verifications/ (beyond the spec): `import-ledger verify` records its result on the supplier's
 * stream, so that the dashboard shows the last verification (GET import-progress/<code>/
 * `last_verification`) and the supplier's history every one. Scoped to the token's suppliers.
 */
export const recordVerificationRequestSchema = z.object({
  import_supplier: z.string(),
  agree: z.boolean(),
  summary: z.record(z.string(), verificationCountsSchema),
  service_id: z.string().optional().describe("The service the folder was compared with (GET service/): another service's identity is refused, `service_mismatch`."),
});

export function verificationRoutes(ctx: LedgerContext, serviceId: () => Promise<string>) {
  return new Hono<AppEnv>().post('/verifications/', async (c) => {
    const request = validated(await scopedBody(c), bySchema(recordVerificationRequestSchema));
    const input = { code: request.import_supplier, agree: request.agree, summary: request.summary, serviceId: await serviceId() };
    const verifiedAt = await recordVerification(ctx, request.service_id === undefined ? input : { ...input, comparedWith: request.service_id }, httpActor(c));
    return answer(c, verificationAnswer(request.import_supplier, verifiedAt));
  });
}
