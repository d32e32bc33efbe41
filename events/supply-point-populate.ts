import { z } from 'zod';
import { eventSchema, type EventsOf } from './envelope.js';

/**
 * Supply point pre-population (spec 4.5): a batch stream holds the batch as asked for (a batch event and one
 * request event per identifier, one transaction before the 201); a request stream what the worker did with
 * one request. One stream per request keeps the worker's appends small, and two workers contend only on
 * the request they both want.
 */
export const supplyPointPopulateBatchStreamId = (batchId: string): string => `supply-point-populate-batch:${batchId}`;
export const supplyPointPopulateRequestStreamId = (batchId: string, sequence: number): string =>
  `supply-point-populate-request:${batchId}:${sequence}`;

export const populateSupplyTypes = ['ELECTRICITY', 'GAS'] as const;
export const populateSupplyTypeSchema = z.enum(populateSupplyTypes);

/** What every request event names: the batch, the request's 1-based position in it, and the supply point asked for. */
const requestRef = {
  batchId: z.string(),
  sequence: z.number().int().min(1),
  supplyType: populateSupplyTypeSchema,
  identifier: z.string(),
};

/** The operator's answer, kept as given; `address` is also lifted out of it for the supply points projection. */
export const operatorAddressSchema = z.object({ line1: z.string(), postcode: z.string(), city: z.string() });

/** A caller asked for supply points from the network operators; every key sharing one of `importSuppliers` (its key's scope) sees the batch. */
export const supplyPointPopulateBatchCreatedSchema = eventSchema(
  'SupplyPointPopulateBatchCreated',
  1,
  z.object({
    batchId: z.string(),
    customerCategory: z.string(),
    importSuppliers: z.array(z.string()),
    prmCount: z.number().int().min(0),
    pceCount: z.number().int().min(0),
    createdAt: z.string(),
  }),
);

/** One supply point of a batch to fetch (PRM ids from the electricity operator, PCE ids from the gas operator). */
export const supplyPointPopulateRequestedSchema = eventSchema(
  'SupplyPointPopulateRequested',
  1,
  z.object({ ...requestRef, requestedAt: z.string() }),
);

/**
 * A worker took the request and is about to call the operator (`attempt` from 1). A claim left past
 * `leaseExpiresAt` (the worker died mid-call) may be taken again; the lost attempt counts as failed.
 */
export const supplyPointPopulateRequestClaimedSchema = eventSchema(
  'SupplyPointPopulateRequestClaimed',
  1,
  z.object({ ...requestRef, attempt: z.number().int().min(1), claimedAt: z.string(), leaseExpiresAt: z.string() }),
);

/** The attempt failed in a way worth retrying (timeout, 5xx, 429, network): the request is due again at `retryAt`. */
export const supplyPointPopulateAttemptFailedSchema = eventSchema(
  'SupplyPointPopulateAttemptFailed',
  1,
  z.object({ ...requestRef, attempt: z.number().int().min(1), reason: z.string(), retryAt: z.string(), failedAt: z.string() }),
);

/** The worker stopped (shutdown) before the operator answered: the claim is given back, the attempt does not count. */
export const supplyPointPopulateRequestReleasedSchema = eventSchema(
  'SupplyPointPopulateRequestReleased',
  1,
  z.object({ ...requestRef, attempt: z.number().int().min(1), reason: z.string(), releasedAt: z.string() }),
);

/** The operator returned the supply point, stored or refreshed; `details` is its JSON object as returned. */
export const supplyPointImportedSchema = eventSchema(
  'SupplyPointImported',
  1,
  z.object({
    ...requestRef,
    attempt: z.number().int().min(1),
    customerCategory: z.string(),
    address: operatorAddressSchema,
    details: z.record(z.string(), z.unknown()),
    importedAt: z.string(),
  }),
);

/** The request ended without a supply point: the operator refused it, or every attempt failed. Final. */
export const supplyPointPopulateRequestErroredSchema = eventSchema(
  'SupplyPointPopulateRequestErrored',
  1,
  z.object({ ...requestRef, attempt: z.number().int().min(1), reason: z.string(), erroredAt: z.string() }),
);

export const supplyPointPopulateEventSchemas = [
  supplyPointPopulateBatchCreatedSchema,
  supplyPointPopulateRequestedSchema,
  supplyPointPopulateRequestClaimedSchema,
  supplyPointPopulateAttemptFailedSchema,
  supplyPointPopulateRequestReleasedSchema,
  supplyPointImportedSchema,
  supplyPointPopulateRequestErroredSchema,
] as const;

export type SupplyPointPopulateBatchCreated = z.infer<typeof supplyPointPopulateBatchCreatedSchema>;
export type SupplyPointPopulateRequested = z.infer<typeof supplyPointPopulateRequestedSchema>;
export type SupplyPointPopulateRequestClaimed = z.infer<typeof supplyPointPopulateRequestClaimedSchema>;
export type SupplyPointPopulateAttemptFailed = z.infer<typeof supplyPointPopulateAttemptFailedSchema>;
export type SupplyPointPopulateRequestReleased = z.infer<typeof supplyPointPopulateRequestReleasedSchema>;
export type SupplyPointImported = z.infer<typeof supplyPointImportedSchema>;
export type SupplyPointPopulateRequestErrored = z.infer<typeof supplyPointPopulateRequestErroredSchema>;

/** Events of a batch stream. */
export type SupplyPointPopulateBatchEvent = SupplyPointPopulateBatchCreated | SupplyPointPopulateRequested;
export type SupplyPointPopulateEvent = EventsOf<typeof supplyPointPopulateEventSchemas>;
/** Events of a request stream. */
export type SupplyPointPopulateRequestEvent = Exclude<SupplyPointPopulateEvent, SupplyPointPopulateBatchEvent>;
