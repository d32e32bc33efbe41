import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { ledgerTransactionSchema } from './account-records.js';
import { eventSchema, type EventsOf } from './envelope.js';

/**
 * The audit stream of an account's dry runs (process, transactions). A dry run writes nothing
 * on the account's own stream `account-import-process:<SUPPLIER>:<EXT>` (the
 * whole unit is rolled back), so its record lives beside it and the account's
 * state, version and projections never see it.
 */
export const accountProcessDryRunStreamId = (importSupplier: string, externalAccountNumber: string): string =>
  `dry-run:${importSupplier}:${externalAccountNumber}`;

/**
 * A process dry run (`POST account-import-process/process/` with
 * `dry_run: true`) of the account passed every check a real run makes: the
 * account would have been imported. Nothing of that run was kept; this event
 * only records that it took place, who ran it (the metadata's actor and
 * request id) and what it would have done. A dry run that failed a check is
 * not recorded.
 *
 * `platformAccountNumber` is the number the run drew and would have used; a
 * later real run draws its own. `accountStreamVersion` is the version of the
 * account stream the run was decided on, so an auditor can tell which staging
 * was checked. Changes no state: no projection and no fold of the account reads it.
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
 * A transactions dry run (`POST transactions/create/` with `dry_run: true`) passed every check a real
 * import makes. `added` are the transactions it would have added, as they would have been recorded (a
 * moved date and its description included); the request's others already existed. Nothing of the run
 * was kept, and no projection or fold of the account reads this record.
 */
export const transactionsDryRunSucceededSchema = eventSchema(
  'TransactionsDryRunSucceeded',
  1,
  z.object({ ...accountRef, added: z.array(ledgerTransactionSchema), accountStreamVersion: z.int().min(0), ranAt: z.string() }),
);

export const accountProcessDryRunEventSchemas = [accountProcessDryRunSucceededSchema, transactionsDryRunSucceededSchema] as const;

export type AccountProcessDryRunSucceeded = z.infer<typeof accountProcessDryRunSucceededSchema>;
export type TransactionsDryRunSucceeded = z.infer<typeof transactionsDryRunSucceededSchema>;
export type AccountProcessDryRunEvent = EventsOf<typeof accountProcessDryRunEventSchemas>;
