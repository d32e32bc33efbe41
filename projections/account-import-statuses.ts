import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { isAccountImportOperation } from '../events/import-attempt.js';
import { accountKey, defineProjection } from './projection.js';

/** The platform's v2 import statuses (GET /v2/data-import/accounts/<code>/<ext>/). */
export const accountImportStatuses = ['PENDING', 'IN_PROGRESS', 'PROCESSED', 'ERRORED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED', 'CANCELLED'] as const;

/**
 * One row per staged account, v1 or v2: its v2 status, latest event and error (the v2 status endpoint), and
 * its scheduled creation, the scheduler's queue: `dueAt` is set while a creation waits (its window's start)
 * or runs (when the claim runs out), so "what is due now" is one range of its index. An account never
 * staged has no row.
 */
export const accountImportStatusTable = sqliteTable(
  'account_import_statuses',
  {
    importSupplier: text('import_supplier').notNull(),
    externalAccountNumber: text('external_account_number').notNull(),
    status: text('status', { enum: accountImportStatuses }).notNull(),
    platformIdentifier: text('platform_identifier'),
    createdAt: text('created_at').notNull(),
    modifiedAt: text('modified_at').notNull(),
    latestEvent: text('latest_event').notNull(),
    latestEventAt: text('latest_event_at').notNull(),
    /** JSON object or null. */
    latestEventData: text('latest_event_data'),
    latestErrorCode: text('latest_error_code'),
    latestErrorDetail: text('latest_error_detail'),
    latestErrorDomain: text('latest_error_domain'),
    /** The latest scheduled creation (null: never scheduled, a v1-only account). */
    taskId: text('task_id'),
    isDryRun: integer('is_dry_run', { mode: 'boolean' }),
    operationsTeamName: text('operations_team_name'),
    windowEnd: text('window_end'),
    claimId: text('claim_id'),
    /** When the scheduler should look at it next; null when nothing waits or runs. */
    dueAt: text('due_at'),
  },
  (t) => [primaryKey({ columns: [t.importSupplier, t.externalAccountNumber] }), index('account_import_statuses_due_idx').on(t.dueAt)],
);
export type AccountImportStatusRow = typeof accountImportStatusTable.$inferSelect;

const EVENT = 'EVENT_ACCOUNT_IMPORT_PROCESS_';
const IMPORT_PROCESS_DOMAIN = 'import_process';

type Row = AccountImportStatusRow;

function touched(row: Row, at: string, event: string, data: Record<string, unknown> | null, patch: Partial<Row>): Row {
  return { ...row, ...patch, modifiedAt: at, latestEvent: `${EVENT}${event}`, latestEventAt: at, latestEventData: data === null ? null : JSON.stringify(data) };
}

/** A creation is waiting or running: what a v1 dry run or refusal says does not change the status it shows. */
const scheduled = (row: Row): boolean => row.dueAt !== null;

const fresh = (data: { importSupplier: string; externalAccountNumber: string }, at: string): Row => ({
  importSupplier: data.importSupplier, externalAccountNumber: data.externalAccountNumber,
  status: 'PENDING',
  platformIdentifier: null,
  createdAt: at,
  modifiedAt: at,
  latestEvent: `${EVENT}CREATED`,
  latestEventAt: at,
  latestEventData: null,
  latestErrorCode: null,
  latestErrorDetail: null,
  latestErrorDomain: null,
  taskId: null,
  isDryRun: null,
  operationsTeamName: null,
  windowEnd: null,
  claimId: null,
  dueAt: null,
});

export const accountImportStatusesProjection = defineProjection(accountImportStatusTable)({
  name: 'account_import_statuses',
  version: 1,
  keyOf: ({ event }) => accountKey(event.data),
  evolve: {
    AccountStaged: (row, { event }) =>
      row ? touched(row, event.data.stagedAt, 'CREATED', null, { status: 'PENDING' }) : fresh(event.data, event.data.stagedAt),
    AccountRestaged: (row, { event }) =>
      row && touched(row, event.data.stagedAt, 'UPDATED', null, { status: row.status === 'IN_PROGRESS' ? row.status : 'PENDING' }),
    AccountProcessed: (row, { event }) =>
      row &&
      touched(row, event.data.processedAt, 'PROCESSED', null, {
        status: 'PROCESSED',
        platformIdentifier: event.data.platformAccountNumber,
        dueAt: null,
        claimId: null,
      }),
    AccountMarkedToSkip: (row, { event }) => row && touched(row, event.data.markedAt, 'SKIPPED', null, { status: 'CANCELLED', dueAt: null, claimId: null }),
    AccountProcessDryRunSucceeded: (row, { event }) =>
      row && touched(row, event.data.ranAt, 'DRY_RUN_SUCCEEDED', null, { status: scheduled(row) ? row.status : 'DRY_RUN_SUCCEEDED' }),
    AccountImportAttemptRefused(row, { event }) {
      // A refused record import (notes, transactions, ...) is not the import process's: its status and errors stay.
      if (!row || !isAccountImportOperation(event.data.operation)) return row;
      const error = { code: event.data.code, detail: event.data.detail, domain: IMPORT_PROCESS_DOMAIN };
      // A refused process is the import process erroring; a refused stage leaves the staged data and its status as they were.
      const erred = event.data.operation === 'process' && !scheduled(row);
      return touched(row, event.data.refusedAt, event.data.dryRun ? 'DRY_RUN_ERRORED' : 'ERRORED', error, {
        status: erred ? (event.data.dryRun ? 'DRY_RUN_ERRORED' : 'ERRORED') : row.status,
        latestErrorCode: error.code,
        latestErrorDetail: error.detail,
        latestErrorDomain: error.domain,
      });
    },
    AccountCreationScheduled(row, { event }) {
      const data = { is_dry_run: event.data.isDryRun, schedule_window_start: event.data.windowStart, schedule_window_end: event.data.windowEnd };
      return touched(row ?? fresh(event.data, event.data.scheduledAt), event.data.scheduledAt, 'SCHEDULED', data, {
        status: 'PENDING',
        taskId: event.data.taskId,
        isDryRun: event.data.isDryRun,
        operationsTeamName: event.data.operationsTeamName,
        windowEnd: event.data.windowEnd,
        claimId: null,
        dueAt: event.data.windowStart ?? event.data.scheduledAt,
      });
    },
    AccountCreationClaimed: (row, { event }) =>
      row && touched(row, event.data.claimedAt, 'STARTED', null, { status: 'IN_PROGRESS', claimId: event.data.claimId, dueAt: event.data.leaseExpiresAt }),
    AccountCreationFinished(row, { event }) {
      if (!row) return null;
      const error = event.data.error && { ...event.data.error, domain: IMPORT_PROCESS_DOMAIN };
      return touched(row, event.data.finishedAt, event.data.outcome, error, {
        status: event.data.outcome,
        platformIdentifier: event.data.platformAccountNumber ?? row.platformIdentifier,
        claimId: null,
        dueAt: null,
        ...(error ? { latestErrorCode: error.code, latestErrorDetail: error.detail, latestErrorDomain: error.domain } : {}),
      });
    },
    AccountCreationCancelled: (row, { event }) => row && touched(row, event.data.cancelledAt, 'CANCELLED', null, { status: 'CANCELLED', claimId: null, dueAt: null }),
  },
});
