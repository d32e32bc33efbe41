import { z } from 'zod';
import { eventSchema, type EventsOf } from './envelope.js';

export const importSupplierStatuses = ['Ongoing', 'Paused', 'Complete'] as const;
export const importSupplierStatusSchema = z.enum(importSupplierStatuses);
export type ImportSupplierStatus = z.infer<typeof importSupplierStatusSchema>;

export const importSupplierStreamId = (code: string): string => `import-supplier:${code}`;

/** An operator set up an import supplier: the group a migration's accounts belong to, with its configuration. */
export const importSupplierCreatedSchema = eventSchema(
  'ImportSupplierCreated',
  1,
  z.object({
    code: z.string(),
    status: importSupplierStatusSchema,
    sendEmails: z.boolean(),
    documentRoot: z.string().nullable(),
    createdAt: z.string(),
  }),
);

/** An operator moved the supplier's migration to another status (Ongoing, Paused, Complete). */
export const importSupplierStatusChangedSchema = eventSchema(
  'ImportSupplierStatusChanged',
  1,
  z.object({ code: z.string(), from: importSupplierStatusSchema, to: importSupplierStatusSchema, changedAt: z.string() }),
);

/** An operator changed the supplier's data-import configuration; only the changed keys are present. */
export const importSupplierConfigChangedSchema = eventSchema(
  'ImportSupplierConfigChanged',
  1,
  z.object({
    code: z.string(),
    sendEmails: z.boolean().optional(),
    documentRoot: z.string().nullable().optional(),
    /** The team of v2 creations whose request names none (null: no default); absent (unchanged) in older events. */
    defaultOperationsTeamName: z.string().nullable().optional(),
    changedAt: z.string(),
  }),
);

/** Counts of one kind of item in a verification: equal on both sides, only in the folder, only in the service, on both with other values. */
export const verificationCountsSchema = z.object({ identical: z.int().min(0), missing: z.int().min(0), extra: z.int().min(0), different: z.int().min(0) });

/**
 * `import-ledger verify` compared a migration folder with what the service holds for the supplier: whether
 * they agree, and the counts per kind of item (products, rates, accounts, notes, ...). Its key is the actor.
 * Version 2 names the service compared with (its identity, GET service/); a version 1 event names none (null).
 */
export const importSupplierVerifiedSchema = eventSchema(
  'ImportSupplierVerified',
  2,
  z.object({
    code: z.string(),
    agree: z.boolean(),
    summary: z.record(z.string(), verificationCountsSchema),
    serviceId: z.string().nullable(),
    verifiedAt: z.string(),
  }),
);

export const importSupplierEventSchemas = [
  importSupplierCreatedSchema,
  importSupplierStatusChangedSchema,
  importSupplierConfigChangedSchema,
  importSupplierVerifiedSchema,
] as const;

export type ImportSupplierCreated = z.infer<typeof importSupplierCreatedSchema>;
export type ImportSupplierStatusChanged = z.infer<typeof importSupplierStatusChangedSchema>;
export type ImportSupplierConfigChanged = z.infer<typeof importSupplierConfigChangedSchema>;
export type ImportSupplierVerified = z.infer<typeof importSupplierVerifiedSchema>;
export type ImportSupplierEvent = EventsOf<typeof importSupplierEventSchemas>;
