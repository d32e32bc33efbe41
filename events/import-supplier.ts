import { z } from 'zod';
import { eventSchema } from './envelope.js';

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
    /**
     * The operations team a v2 scheduled creation is assigned to when its request
     * names none (null: no default any more). Absent from events written before the
     * field existed, which left it unchanged.
     */
    defaultOperationsTeamName: z.string().nullable().optional(),
    changedAt: z.string(),
  }),
);

export const importSupplierEventSchemas = [
  importSupplierCreatedSchema,
  importSupplierStatusChangedSchema,
  importSupplierConfigChangedSchema,
] as const;

export type ImportSupplierCreated = z.infer<typeof importSupplierCreatedSchema>;
export type ImportSupplierStatusChanged = z.infer<typeof importSupplierStatusChangedSchema>;
export type ImportSupplierConfigChanged = z.infer<typeof importSupplierConfigChangedSchema>;
export type ImportSupplierEvent = ImportSupplierCreated | ImportSupplierStatusChanged | ImportSupplierConfigChanged;
