import { Hono } from 'hono';
import { z } from 'zod';
import type { SupplyPointPopulateBatchRow } from '../../../projections/supply-points-populate-batches.js';
import type { SupplyPointPopulateRequestRow } from '../../../projections/supply-points-populate-requests.js';
import { populateAnswer } from '../../answers/supply-point-populate.js';
import type { LedgerContext } from '../../application/context.js';
import { createPopulateBatch } from '../../application/supply-point-populate.js';
import { DomainError } from '../../domain/errors.js';
import { populateRequestSchema } from '../../domain/supply-point/populate-request.js';
import { answer } from '../answer.js';
import { httpActor } from '../auth.js';
import type { AppEnv } from '../env.js';
import { bySchema, validated } from '../validation.js';

/** POST supply-point/populate/ (spec 4.5). */
export const populateSupplyPointsRequestSchema = populateRequestSchema;

const idLists = z.object({ prm_ids: z.array(z.string()), pce_ids: z.array(z.string()) });
const erroredItem = z.object({ id: z.string(), errored_reason: z.string() });

/** GET supply-point/populate/<batch_id>/ (not in the spec; the platform's batch status). */
export const populateBatchStatusResponseSchema = z.object({
  status: z.enum(['PENDING', 'IN_PROGRESS', 'COMPLETED']),
  imported_requests: idLists,
  pending_requests: idLists,
  errored_requests: z.object({ prms: z.array(erroredItem), pces: z.array(erroredItem) }),
});
export type PopulateBatchStatusResponse = z.infer<typeof populateBatchStatusResponseSchema>;

/**
 * PENDING until a worker first takes one of the batch's requests, COMPLETED
 * once none is left pending, IN_PROGRESS in between. A request being called
 * right now, or waiting for a retry, is pending.
 */
export function batchStatusView(
  batch: SupplyPointPopulateBatchRow,
  requests: readonly SupplyPointPopulateRequestRow[],
): PopulateBatchStatusResponse {
  const view: PopulateBatchStatusResponse = {
    status: batch.pendingCount === 0 ? 'COMPLETED' : batch.startedAt === null ? 'PENDING' : 'IN_PROGRESS',
    imported_requests: { prm_ids: [], pce_ids: [] },
    pending_requests: { prm_ids: [], pce_ids: [] },
    errored_requests: { prms: [], pces: [] },
  };
  for (const request of requests) {
    const electricity = request.supplyType === 'ELECTRICITY';
    switch (request.status) {
      case 'IMPORTED':
        (electricity ? view.imported_requests.prm_ids : view.imported_requests.pce_ids).push(request.identifier);
        break;
      case 'ERRORED':
        (electricity ? view.errored_requests.prms : view.errored_requests.pces).push({
          id: request.identifier,
          errored_reason: request.erroredReason ?? '',
        });
        break;
      case 'PENDING':
      case 'CLAIMED':
        (electricity ? view.pending_requests.prm_ids : view.pending_requests.pce_ids).push(request.identifier);
        break;
    }
  }
  return view;
}

const batchNotFound = (batchId: string) =>
  new DomainError('populate_batch_not_found', `No supply point populate batch ${batchId}.`);

export function supplyPointPopulateRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>()
    .post('/supply-point/populate/', async (c) => {
      const request = validated(await c.req.json(), bySchema(populateSupplyPointsRequestSchema));
      const batch = await createPopulateBatch(ctx, { request, importSuppliers: c.get('principal').suppliers }, httpActor(c));
      return answer(c, populateAnswer(batch));
    })
    .get('/supply-point/populate/:batchId/', async (c) => {
      const batchId = c.req.param('batchId');
      const batch = await ctx.read.findPopulateBatch(batchId);
      // A batch is visible to keys sharing one of its creator's suppliers; to any other key it does not exist.
      const suppliers = c.get('principal').suppliers;
      if (!batch || !batch.importSuppliers.some((code) => suppliers.includes(code))) throw batchNotFound(batchId);
      return c.json(batchStatusView(batch, await ctx.read.listPopulateRequests(batchId)), 200);
    });
}
