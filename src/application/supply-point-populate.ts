import {
  supplyPointPopulateBatchStreamId,
  supplyPointPopulateRequestStreamId,
  type SupplyPointPopulateRequestEvent,
} from '../../events/supply-point-populate.js';
import { populateBatchDecider } from '../domain/supply-point/populate-batch-decider.js';
import type { PopulateRequest } from '../domain/supply-point/populate-request.js';
import {
  populateRequestDecider,
  type OperatorAddress,
  type PopulateRequestCommand,
  type PopulateRequestRef,
} from '../domain/supply-point/populate-request-decider.js';
import { handle, type Untimed } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';

/** Records a populate batch and one request per identifier in one transaction; the worker takes them from the queue later. */
export async function createPopulateBatch(
  ctx: LedgerContext,
  input: { readonly request: PopulateRequest; readonly importSuppliers: readonly string[] },
  actor: Actor,
): Promise<{ batchId: string }> {
  const batchId = ctx.ids.uuid();
  await handle(ctx, actor, populateBatchDecider, supplyPointPopulateBatchStreamId(batchId), {
    type: 'CreatePopulateBatch',
    batchId,
    customerCategory: input.request.customer_category,
    importSuppliers: [...new Set(input.importSuppliers)].sort(),
    prmIds: input.request.prm_ids,
    pceIds: input.request.pce_ids,
  });
  return { batchId };
}

/** Worker events are correlated with their batch, so an auditor can follow one batch through the log. */
async function handleRequest(
  ctx: LedgerContext,
  request: PopulateRequestRef,
  command: Untimed<PopulateRequestCommand> | ((now: Date) => Untimed<PopulateRequestCommand>),
  actor: Actor,
): Promise<readonly SupplyPointPopulateRequestEvent[]> {
  const { batchId, sequence } = request;
  const result = await handle(ctx, actor, populateRequestDecider, supplyPointPopulateRequestStreamId(batchId, sequence), command, { correlationId: batchId });
  return result.events.map((stored) => stored.event);
}

/**
 * Takes a due request for one attempt, or errors it when its last attempt was lost with a worker that died.
 * A DomainError when another worker got there first.
 */
export async function claimPopulateRequest(
  ctx: LedgerContext,
  request: PopulateRequestRef,
  options: { readonly leaseMs: number; readonly maxAttempts: number },
  actor: Actor,
): Promise<{ kind: 'claimed'; attempt: number } | { kind: 'errored'; attempt: number; reason: string }> {
  const [event] = await handleRequest(
    ctx,
    request,
    (now) => ({
      type: 'ClaimPopulateRequest',
      request,
      leaseExpiresAt: new Date(now.getTime() + options.leaseMs).toISOString(),
      maxAttempts: options.maxAttempts,
    }),
    actor,
  );
  if (event?.type === 'SupplyPointPopulateRequestErrored') {
    return { kind: 'errored', attempt: event.data.attempt, reason: event.data.reason };
  }
  if (event?.type !== 'SupplyPointPopulateRequestClaimed') throw new Error(`unexpected claim outcome: ${event?.type}`);
  return { kind: 'claimed', attempt: event.data.attempt };
}

/** What came of one attempt, as the worker saw it. */
export type PopulateOutcome =
  | {
      readonly kind: 'found';
      readonly customerCategory: string;
      readonly address: OperatorAddress;
      readonly details: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'transient'; readonly reason: string; readonly retryAt: string; readonly maxAttempts: number }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'released'; readonly reason: string };

/** Records the outcome of attempt `attempt`; returns the event written (the request's new state). */
export async function recordPopulateOutcome(
  ctx: LedgerContext,
  request: PopulateRequestRef,
  attempt: number,
  outcome: PopulateOutcome,
  actor: Actor,
): Promise<SupplyPointPopulateRequestEvent | undefined> {
  const command = ((): Untimed<PopulateRequestCommand> => {
    switch (outcome.kind) {
      case 'found':
        return {
          type: 'RecordSupplyPointFound',
          request,
          attempt,
          customerCategory: outcome.customerCategory,
          address: outcome.address,
          details: outcome.details,
        };
      case 'transient':
        return {
          type: 'RecordPopulateAttemptFailed',
          request,
          attempt,
          reason: outcome.reason,
          retryAt: outcome.retryAt,
          maxAttempts: outcome.maxAttempts,
        };
      case 'refused':
        return { type: 'RecordPopulateRequestRefused', request, attempt, reason: outcome.reason };
      case 'released':
        return { type: 'ReleasePopulateRequest', request, attempt, reason: outcome.reason };
    }
  })();
  const [event] = await handleRequest(ctx, request, command, actor);
  return event;
}
