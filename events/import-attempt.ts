import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { eventSchema } from './envelope.js';

/**
 * The audit stream of an account's refused attempts, beside its import-process
 * stream: `refused-attempt:<SUPPLIER>:<EXT>`. A refused stage or process writes
 * nothing on the account's own streams (its unit of work is rolled back); the
 * fact that it was tried and refused lives here.
 */
export const refusedAttemptStreamId = (importSupplier: string, externalAccountNumber: string): string =>
  `refused-attempt:${importSupplier}:${externalAccountNumber}`;

/** What was attempted: a v1 stage or process, a v2 schedule, or a scheduled run of the worker. */
export const importAttemptOperations = ['stage', 'process', 'schedule', 'scheduled_run'] as const;
export type ImportAttemptOperation = (typeof importAttemptOperations)[number];

/**
 * A stage or process of the account (v1 or v2, scheduled or not) was refused
 * by a rule. Recorded for auditors and for the v2 status's `latest_error`:
 * the top-level code and detail, and each error item's code and `attr` path.
 * Never the payload, nor the items' details (they may quote payload values).
 * The same refusal repeated back to back (same operation, dry run, codes and
 * paths, decided on the same account stream version) is recorded once.
 * `accountStreamVersion` is the version of the account's import-process
 * stream the attempt was refused on (0: never staged).
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
export type ImportAttemptEvent = AccountImportAttemptRefused;
