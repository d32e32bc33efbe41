import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { eventSchema } from './envelope.js';

/**
 * The audit stream of an account's refused attempts: a refused stage or process writes nothing on the
 * account's own streams (its unit is rolled back), so that it was tried and refused lives here.
 */
export const refusedAttemptStreamId = (importSupplier: string, externalAccountNumber: string): string =>
  `refused-attempt:${importSupplier}:${externalAccountNumber}`;

/** An attempt on the account's import: a v1 stage or process, a v2 schedule, or a scheduled run of the worker. */
export const accountImportOperations = ['stage', 'process', 'schedule', 'scheduled_run'] as const;
export type AccountImportOperation = (typeof accountImportOperations)[number];

/** An attempt to import records onto an imported account: notes, transactions, historical statements, a payment instruction. */
export const recordImportOperations = ['notes', 'transactions', 'historical_statements', 'payment_instruction'] as const;
export type RecordImportOperation = (typeof recordImportOperations)[number];

/** What was attempted: an import operation of the account, or a record import onto it. */
export const importAttemptOperations = [...accountImportOperations, ...recordImportOperations] as const;
export type ImportAttemptOperation = (typeof importAttemptOperations)[number];

const accountImportOperationSet: ReadonlySet<ImportAttemptOperation> = new Set(accountImportOperations);

/** Whether the attempt was on the account's import (a stage, process or schedule), not a record import onto it. */
export const isAccountImportOperation = (operation: ImportAttemptOperation): operation is AccountImportOperation =>
  accountImportOperationSet.has(operation);

/**
 * A stage or process of the account (v1 or v2, scheduled or not), or a record import onto it (notes,
 * transactions, historical statements, a payment instruction), was refused by a rule. Recorded for auditors,
 * the v2 status's `latest_error` (import operations only) and the external events: the code and detail, each
 * error item's code and `attr`, never the payload nor the items' details (they may quote it). The same
 * refusal back to back on the same `accountStreamVersion` (0: never staged) is recorded once.
 *
 * `operation` was widened with the record operations at version 1: an additive change to the enum, which
 * every event stored before it still satisfies, so no new version nor upcaster.
 */
export const accountImportAttemptRefusedSchema = eventSchema(
  'AccountImportAttemptRefused',
  1,
  z.object({
    ...accountRef,
    operation: z.enum(importAttemptOperations),
    dryRun: z.boolean(),
    code: z.string(),
    detail: z.string(),
    errors: z.array(z.object({ code: z.string(), attr: z.string().nullable() })),
    accountStreamVersion: z.int().min(0),
    refusedAt: z.string(),
  }),
);

export const importAttemptEventSchemas = [accountImportAttemptRefusedSchema] as const;

export type AccountImportAttemptRefused = z.infer<typeof accountImportAttemptRefusedSchema>;
