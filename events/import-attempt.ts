import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { eventSchema } from './envelope.js';

/**
 * The audit stream of an account's refused attempts: a refused stage or process writes nothing on the
 * account's own streams (its unit is rolled back), so that it was tried and refused lives here.
 */
export const refusedAttemptStreamId = (importSupplier: string, externalAccountNumber: string): string =>
  `refused-attempt:${importSupplier}:${externalAccountNumber}`;

/** What was attempted: a v1 stage or process, a v2 schedule, or a scheduled run of the worker. */
export const importAttemptOperations = ['stage', 'process', 'schedule', 'scheduled_run'] as const;
export type ImportAttemptOperation = (typeof importAttemptOperations)[number];

/**
 * A stage or process of the account (v1 or v2, scheduled or not) was refused by a rule. Recorded for
 * auditors and the v2 status's `latest_error`: the code and detail, each error item's code and `attr`, never
 * the payload nor the items' details (they may quote it). The same refusal back to back on the same
 * `accountStreamVersion` (0: never staged) is recorded once.
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
