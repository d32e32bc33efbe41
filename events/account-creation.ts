import { z } from 'zod';
import { accountRef } from './account-import-process.js';
import { eventSchema, type EventsOf } from './envelope.js';

/**
 * The stream of an account's scheduled creations (`POST /v2/data-import/accounts/`): the schedule, the
 * worker's claims and how each run ended. The account itself stays on its import-process stream.
 */
export const accountCreationStreamId = (importSupplier: string, externalAccountNumber: string): string =>
  `account-creation:${importSupplier}:${externalAccountNumber}`;

/** How a scheduled run ended: the platform's v2 statuses for a finished task. */
export const accountCreationOutcomes = ['PROCESSED', 'ERRORED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED'] as const;
export type AccountCreationOutcome = (typeof accountCreationOutcomes)[number];

const ref = {
  ...accountRef,
  /** One id per schedule: a claim or an outcome names the schedule it is about. */
  taskId: z.string(),
};

/**
 * A caller asked for the account to be created (v2), after staging its data in the same transaction. The
 * worker runs it from `windowStart` (null: at once) until `windowEnd` (null: no deadline); a new schedule
 * replaces one not run yet. `operationsTeamName` is the request's team, or the supplier's default one.
 */
export const accountCreationScheduledSchema = eventSchema(
  'AccountCreationScheduled',
  1,
  z.object({
    ...ref,
    isDryRun: z.boolean(),
    operationsTeamName: z.string(),
    windowStart: z.string().nullable(),
    windowEnd: z.string().nullable(),
    scheduledAt: z.string(),
  }),
);

/**
 * A worker took the scheduled creation and is running it, until `leaseExpiresAt`: then another worker may
 * take it again. The run is one transaction with its outcome, so a claim that ran out means no run happened.
 */
export const accountCreationClaimedSchema = eventSchema(
  'AccountCreationClaimed',
  1,
  z.object({ ...ref, claimId: z.string(), claimedAt: z.string(), leaseExpiresAt: z.string() }),
);

/**
 * A scheduled creation ran, once: PROCESSED in the transaction of the account's AccountProcessed,
 * DRY_RUN_SUCCEEDED with the dry-run audit record; ERRORED or DRY_RUN_ERRORED carry the refusal's code and
 * detail (its items are on the refused-attempt stream). A window that closed first ends ERRORED with code
 * `schedule_window_elapsed`.
 */
export const accountCreationFinishedSchema = eventSchema(
  'AccountCreationFinished',
  1,
  z.object({
    ...ref,
    outcome: z.enum(accountCreationOutcomes),
    platformAccountNumber: z.string().nullable(),
    error: z.object({ code: z.string(), detail: z.string() }).nullable(),
    finishedAt: z.string(),
  }),
);

/** An operator cancelled a scheduled creation before it ran (`import-ledger account cancel-creation`): it never runs. */
export const accountCreationCancelledSchema = eventSchema(
  'AccountCreationCancelled',
  1,
  z.object({ ...ref, cancelledAt: z.string() }),
);

export const accountCreationEventSchemas = [
  accountCreationScheduledSchema,
  accountCreationClaimedSchema,
  accountCreationFinishedSchema,
  accountCreationCancelledSchema,
] as const;

export type AccountCreationScheduled = z.infer<typeof accountCreationScheduledSchema>;
export type AccountCreationClaimed = z.infer<typeof accountCreationClaimedSchema>;
export type AccountCreationFinished = z.infer<typeof accountCreationFinishedSchema>;
export type AccountCreationCancelled = z.infer<typeof accountCreationCancelledSchema>;
export type AccountCreationEvent = EventsOf<typeof accountCreationEventSchemas>;
