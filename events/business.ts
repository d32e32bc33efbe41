import { z } from 'zod';
import { eventSchema, type EventsOf } from './envelope.js';

/**
 * One stream per business: the import supplier plus the caller's
 * external_business_identifier (spec 2.4). Supplier codes are `A-Z 0-9 _ -`,
 * so the first `:` after the code is an unambiguous separator.
 */
export const businessStreamId = (importSupplier: string, externalBusinessIdentifier: string): string =>
  `business:${importSupplier}:${externalBusinessIdentifier}`;

/**
 * A caller created a business (spec 4.4). `business` is the validated
 * `business` object of the request without its `business_contracts`, kept as
 * the caller sent it (snake_case, unknown fields already dropped); each
 * contract follows as its own BusinessContractAdded event, appended in the
 * same transaction, in payload order.
 *
 * The business's `platform_business_id` is the global position of this event
 * in the log: unique, an integer, and the same after any projection rebuild.
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
 * A business contract (spec 2.3) of a business: appended right after
 * BusinessCreated by business/, or later, on the existing business, by
 * business-contracts/create/, one event per contract in payload order.
 * `identifier` is unique among the business contracts of the import supplier;
 * accounts link to the contract by it (spec 1.5). `contract` is the validated
 * contract exactly as sent (identifier, dates, versions and their terms), kept
 * as a JSON object so that tightening the validation later never makes a
 * stored event unreadable.
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
 * A payment instruction held by a payment vendor was recorded on a business
 * (business-payment-instruction/create/), for the business's
 * accounts named in the request. Recorded only after the vendor confirmed, in
 * the same request, that the instruction exists: `vendorDetails` is the
 * vendor's JSON answer exactly as given. A reference is recorded at most once
 * per business: sending it again appends nothing.
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
