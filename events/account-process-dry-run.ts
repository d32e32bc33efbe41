import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { ledgerTransactionSchema } from './account-records.js';
import { eventSchema } from './envelope.js';

/**
 * The audit stream of an account's dry runs (process, transactions). A dry run writes nothing on the
 * account's own stream (its unit is rolled back), so its record lives beside it, unseen by the account's
 * state, version and projections.
 */
export const accountProcessDryRunStreamId = (importSupplier: string, externalAccountNumber: string): string =>
  `dry-run:${importSupplier}:${externalAccountNumber}`;

/**
 * A process dry run (`dry_run: true`) passed every check a real run makes. Nothing of the run was kept:
 * this records that it took place, who ran it (the metadata) and what it would have done. A failed one is
 * a refused attempt (import-attempt.ts). `platformAccountNumber` is the number the run drew (a real run
 * draws its own); `accountStreamVersion` tells which staging was checked.
 */
export const accountProcessDryRunSucceededSchema = eventSchema(
  'AccountProcessDryRunSucceeded',
  1,
  z.object({
    ...accountRef,
    operationsTeamName: z.string(),
    platformAccountNumber: z.string(),
    accountStreamVersion: z.int().min(0),
    ranAt: z.string(),
  }),
);

/**
 * A transactions dry run (`dry_run: true`) passed every check a real import makes. `added` are the
 * transactions it would have added, as they would have been recorded (a moved date and its description
 * included); the request's others already existed.
 */
export const transactionsDryRunSucceededSchema = eventSchema(
  'TransactionsDryRunSucceeded',
  1,
  z.object({ ...accountRef, added: z.array(ledgerTransactionSchema), accountStreamVersion: z.int().min(0), ranAt: z.string() }),
);

export const accountProcessDryRunEventSchemas = [accountProcessDryRunSucceededSchema, transactionsDryRunSucceededSchema] as const;

export type AccountProcessDryRunSucceeded = z.infer<typeof accountProcessDryRunSucceededSchema>;
export type TransactionsDryRunSucceeded = z.infer<typeof transactionsDryRunSucceededSchema>;
