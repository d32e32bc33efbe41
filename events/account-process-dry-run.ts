import { z } from 'zod';
import { eventSchema } from './envelope.js';

/**
 * The audit stream of an account's process dry runs. A dry run writes nothing
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
    importSupplier: z.string(),
    externalAccountNumber: z.string(),
    operationsTeamName: z.string(),
    platformAccountNumber: z.string(),
    accountStreamVersion: z.int().min(0),
    ranAt: z.string(),
  }),
);

export const accountProcessDryRunEventSchemas = [accountProcessDryRunSucceededSchema] as const;

export type AccountProcessDryRunSucceeded = z.infer<typeof accountProcessDryRunSucceededSchema>;
export type AccountProcessDryRunEvent = AccountProcessDryRunSucceeded;
