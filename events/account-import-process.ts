import { z } from 'zod';
import { eventSchema, type EventsOf } from './envelope.js';

export const transferStatuses = ['UNKNOWN', 'PENDING', 'IN_PROGRESS', 'REJECTED', 'COMPLETED'] as const;
export const transferStatusSchema = z.enum(transferStatuses);
export type TransferStatus = z.infer<typeof transferStatusSchema>;

/** Supplier codes are `A-Z 0-9 _ -`, so `:` after the code is an unambiguous separator. */
export const accountImportProcessStreamId = (importSupplier: string, externalAccountNumber: string): string =>
  `account-import-process:${importSupplier}:${externalAccountNumber}`;

/** The account every event on or beside its stream names. */
export const accountRef = { importSupplier: z.string(), externalAccountNumber: z.string() };

/**
 * A staging: `payload` is the validated account payload as it was staged (unknown fields already
 * dropped), kept as a JSON object: it is re-validated against the current rules when the account is processed.
 */
const stagedDataSchema = z.object({
  ...accountRef,
  payload: z.record(z.string(), z.unknown()),
  stagedAt: z.string(),
});

/** A caller staged account data for the first time (spec 3.2: none -> staged, 201). */
export const accountStagedSchema = eventSchema('AccountStaged', 1, stagedDataSchema);

/** A caller staged the account again before it was processed: the new payload replaces the old one (200). */
export const accountRestagedSchema = eventSchema('AccountRestaged', 1, stagedDataSchema);

/**
 * The staged account was processed into a platform account, assigned to an operations team; its transfer
 * status starts at PENDING. `businessContractIdentifier` and `platformBusinessId` name the business contract
 * the account is linked to (spec 1.5), both or neither. They are optional so that the events stored before
 * they existed still parse at version 1.
 */
export const accountProcessedSchema = eventSchema(
  'AccountProcessed',
  1,
  z.object({
    ...accountRef,
    platformAccountNumber: z.string(),
    operationsTeamName: z.string(),
    processedAt: z.string(),
    businessContractIdentifier: z.string().optional(),
    platformBusinessId: z.int().optional(),
  }),
);

/** An operator marked the staged account to be skipped: it can no longer be staged or processed. */
export const accountMarkedToSkipSchema = eventSchema(
  'AccountMarkedToSkip',
  1,
  z.object({ ...accountRef, markedAt: z.string() }),
);

/** The industry switch of an imported account moved on (PENDING -> IN_PROGRESS -> COMPLETED or REJECTED, REJECTED -> IN_PROGRESS). */
export const accountTransferStatusChangedSchema = eventSchema(
  'AccountTransferStatusChanged',
  1,
  z.object({ ...accountRef, from: transferStatusSchema, to: transferStatusSchema, changedAt: z.string() }),
);

export const accountImportProcessEventSchemas = [
  accountStagedSchema,
  accountRestagedSchema,
  accountProcessedSchema,
  accountMarkedToSkipSchema,
  accountTransferStatusChangedSchema,
] as const;

export type AccountStaged = z.infer<typeof accountStagedSchema>;
export type AccountRestaged = z.infer<typeof accountRestagedSchema>;
export type AccountProcessed = z.infer<typeof accountProcessedSchema>;
export type AccountMarkedToSkip = z.infer<typeof accountMarkedToSkipSchema>;
export type AccountTransferStatusChanged = z.infer<typeof accountTransferStatusChangedSchema>;
export type AccountImportProcessEvent = EventsOf<typeof accountImportProcessEventSchemas>;

const accountImportProcessEventTypes: ReadonlySet<string> = new Set(
  accountImportProcessEventSchemas.map((schema) => schema.shape.type.value),
);

/**
 * Whether an event of the account stream is one of the lifecycle events above. The stream also holds what
 * is recorded on the account (notes, transactions, emails, ...); each decider over it folds only what it needs.
 */
export function isAccountImportProcessEvent(event: { readonly type: string }): event is AccountImportProcessEvent {
  return accountImportProcessEventTypes.has(event.type);
}
