import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { eventSchema } from './envelope.js';

/**
 * What the staged payload brings at process time beyond the account, notes and statements: per supply point
 * its payment schedules, instructions, agreements and consents; campaigns, metadata, supplementary ledgers.
 * Recorded as given (camelCase, integer cents), not checked against a payment vendor.
 */

const cents = z.int();

export const importedPaymentScheduleSchema = z.object({
  amountCents: cents.min(0),
  dayOfMonth: z.int(),
  frequency: z.string(),
  means: z.string(),
  startDate: z.string(),
});

export const importedPaymentInstructionSchema = z.object({
  vendor: z.string(),
  reference: z.string(),
  type: z.string(),
  validFrom: z.string().nullable(),
});

export const importedAgreementSchema = z.object({
  tariffCode: z.string(),
  agreedAt: z.string().nullable(),
  effectiveFrom: z.string(),
  effectiveTo: z.string().nullable(),
  addonBands: z.array(z.string()),
});

/** The records of one supply point, identified as in the payload. */
export const importedSupplyPointRecordsSchema = z.object({
  identifier: z.string(),
  supplyType: z.string(),
  paymentSchedules: z.array(importedPaymentScheduleSchema),
  paymentInstructions: z.array(importedPaymentInstructionSchema),
  agreements: z.array(importedAgreementSchema),
  /** consent_data as given: consent name -> granted. */
  consents: z.record(z.string(), z.boolean()),
});

export const importedEnergyChequeSchema = z.object({
  number: z.string(),
  protectionFrom: z.string(),
  protectionTo: z.string(),
  source: z.string(),
  aspRemittanceRef: z.string().nullable(),
  /** The payload gives whole euros; kept in cents like every amount. */
  amountCents: cents.min(0),
  validTo: z.string(),
  status: z.string(),
});

/** The records of the staged payload, appended right after AccountProcessed when it holds at least one. */
export const accountRecordsImportedSchema = eventSchema(
  'AccountRecordsImported',
  1,
  z.object({
    ...accountRef,
    platformAccountNumber: z.string(),
    /** Supply points that carry at least one record, in payload order. */
    supplyPoints: z.array(importedSupplyPointRecordsSchema),
    campaigns: z.array(z.object({ slug: z.string(), campaignNote: z.string().nullable() })),
    metadata: z.array(z.object({ key: z.string(), value: z.record(z.string(), z.json()) })),
    supplementaryLedgers: z.array(z.object({ ledgerCode: z.string(), energyCheques: z.array(importedEnergyChequeSchema) })),
    importedAt: z.string(),
  }),
);

export const stagedAccountRecordEventSchemas = [accountRecordsImportedSchema] as const;

export type AccountRecordsImported = z.infer<typeof accountRecordsImportedSchema>;
export type ImportedSupplyPointRecords = z.infer<typeof importedSupplyPointRecordsSchema>;
