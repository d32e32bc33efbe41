import { z } from 'zod';
import { eventSchema, type EventsOf } from './envelope.js';

/** One stream per business (spec 2.4); supplier codes are `A-Z 0-9 _ -`, so `:` after the code is unambiguous. */
export const businessStreamId = (importSupplier: string, externalBusinessIdentifier: string): string =>
  `business:${importSupplier}:${externalBusinessIdentifier}`;

/**
 * A caller created a business (spec 4.4). `business` is the request's validated `business` object without
 * its contracts, as sent (snake_case); each contract follows as a BusinessContractAdded in the same
 * transaction. The business's `platform_business_id` is this event's global position: unique, and the
 * same after any rebuild.
 */
export const businessCreatedSchema = eventSchema(
  'BusinessCreated',
  1,
  z.object({
    importSupplier: z.string(),
    externalBusinessIdentifier: z.string(),
    business: z.object({
      business_type: z.string(),
      company_name: z.string(),
      siret: z.string(),
      details: z.array(z.object({ key: z.string(), value: z.string() })).optional(),
    }),
    createdAt: z.string(),
  }),
);

/**
 * A business contract (spec 2.3), with BusinessCreated or later by business-contracts/create/, in payload
 * order. `identifier` is unique among the supplier's contracts; accounts link to the contract by it (spec
 * 1.5). `contract` is the validated contract as sent, kept as a JSON object so that tightening the
 * validation later never makes a stored event unreadable.
 */
export const businessContractAddedSchema = eventSchema(
  'BusinessContractAdded',
  1,
  z.object({
    importSupplier: z.string(),
    externalBusinessIdentifier: z.string(),
    identifier: z.string(),
    contract: z.record(z.string(), z.unknown()),
    addedAt: z.string(),
  }),
);

/**
 * A payment instruction held by a payment vendor was recorded on a business, for the accounts the request
 * named, once the vendor confirmed it exists (`vendorDetails`: its answer as given). A reference is
 * recorded at most once per business.
 */
export const businessPaymentInstructionCreatedSchema = eventSchema(
  'BusinessPaymentInstructionCreated',
  1,
  z.object({
    importSupplier: z.string(),
    externalBusinessIdentifier: z.string(),
    /** The vendor name as the caller gave it (a key of LEDGER_PAYMENT_VENDORS). */
    vendor: z.string(),
    reference: z.string(),
    /** The instruction type the caller gave (CARD, DIRECT_DEBIT, ...). */
    type: z.string(),
    /** The caller's `valid_from` date, or null when none was given. */
    validFrom: z.string().nullable(),
    /** The imported accounts of the supplier the instruction is for, as named in the request, with their platform numbers. */
    accounts: z.array(z.object({ externalAccountNumber: z.string(), platformAccountNumber: z.string() })),
    vendorDetails: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  }),
);

export const businessEventSchemas = [businessCreatedSchema, businessContractAddedSchema, businessPaymentInstructionCreatedSchema] as const;

export type BusinessCreated = z.infer<typeof businessCreatedSchema>;
export type BusinessContractAdded = z.infer<typeof businessContractAddedSchema>;
export type BusinessPaymentInstructionCreated = z.infer<typeof businessPaymentInstructionCreatedSchema>;
export type BusinessEvent = EventsOf<typeof businessEventSchemas>;
