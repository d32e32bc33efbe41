import { z } from 'zod';
import { ofType, type Answer, type Events } from './answer.js';

/** supply-point/populate/ 201: the batch to poll. */
export const populateSupplyPointsResponseSchema = z.object({ batch_id: z.string() });

export function populateAnswer(batch: { batchId: string }): Answer<z.input<typeof populateSupplyPointsResponseSchema>> {
  return { status: 201, body: { batch_id: batch.batchId } };
}

export function populateAnswerFromEvents(events: Events): Answer | null {
  const batch = ofType(events, 'SupplyPointPopulateBatchCreated')[0];
  return batch ? populateAnswer(batch.event.data) : null;
}
