import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { assertNever } from '../src/domain/assert-never.js';
import { defineProjection } from './projection.js';

export const populateRequestStatuses = ['PENDING', 'CLAIMED', 'IMPORTED', 'ERRORED'] as const;
export type PopulateRequestStatus = (typeof populateRequestStatuses)[number];

/**
 * One row per populate request: the worker's queue (PENDING and CLAIMED rows
 * in `queue_position` order, the global position of the request's event) and
 * the lists of the batch status endpoint.
 */
export const supplyPointPopulateRequests = sqliteTable(
  'supply_point_populate_requests',
  {
    batchId: text('batch_id').notNull(),
    sequence: integer('sequence').notNull(),
    queuePosition: integer('queue_position').notNull(),
    supplyType: text('supply_type', { enum: ['ELECTRICITY', 'GAS'] }).notNull(),
    identifier: text('identifier').notNull(),
    status: text('status', { enum: populateRequestStatuses }).notNull(),
    /** Attempts started so far (the current one while CLAIMED). */
    attempt: integer('attempt').notNull(),
    /** While CLAIMED: when the claim may be taken over by another worker. */
    leaseExpiresAt: text('lease_expires_at'),
    /** While PENDING after a failed attempt: not to be tried again before this. */
    dueAt: text('due_at'),
    lastFailure: text('last_failure'),
    erroredReason: text('errored_reason'),
    requestedAt: text('requested_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.batchId, t.sequence] }),
    uniqueIndex('supply_point_populate_requests_queue_position_unique').on(t.queuePosition),
    index('supply_point_populate_requests_queue_idx').on(t.supplyType, t.status, t.queuePosition),
  ],
);
export type SupplyPointPopulateRequestRow = typeof supplyPointPopulateRequests.$inferSelect;

export const supplyPointPopulateRequestsProjection = defineProjection({
  name: 'supply_point_populate_requests',
  version: 1,
  table: supplyPointPopulateRequests,
  handles: [
    'SupplyPointPopulateRequested',
    'SupplyPointPopulateRequestClaimed',
    'SupplyPointPopulateAttemptFailed',
    'SupplyPointPopulateRequestReleased',
    'SupplyPointImported',
    'SupplyPointPopulateRequestErrored',
  ],
  keyOf({ event }) {
    switch (event.type) {
      case 'SupplyPointPopulateRequested':
      case 'SupplyPointPopulateRequestClaimed':
      case 'SupplyPointPopulateAttemptFailed':
      case 'SupplyPointPopulateRequestReleased':
      case 'SupplyPointImported':
      case 'SupplyPointPopulateRequestErrored':
        return { batchId: event.data.batchId, sequence: event.data.sequence };
      default:
        return assertNever(event);
    }
  },
  evolve(row, { event, globalPosition }): SupplyPointPopulateRequestRow | null {
    switch (event.type) {
      case 'SupplyPointPopulateRequested':
        return {
          batchId: event.data.batchId,
          sequence: event.data.sequence,
          queuePosition: globalPosition,
          supplyType: event.data.supplyType,
          identifier: event.data.identifier,
          status: 'PENDING',
          attempt: 0,
          leaseExpiresAt: null,
          dueAt: null,
          lastFailure: null,
          erroredReason: null,
          requestedAt: event.data.requestedAt,
          updatedAt: event.data.requestedAt,
        };
      case 'SupplyPointPopulateRequestClaimed':
        return (
          row && {
            ...row,
            status: 'CLAIMED',
            attempt: event.data.attempt,
            leaseExpiresAt: event.data.leaseExpiresAt,
            dueAt: null,
            updatedAt: event.data.claimedAt,
          }
        );
      case 'SupplyPointPopulateAttemptFailed':
        return (
          row && {
            ...row,
            status: 'PENDING',
            leaseExpiresAt: null,
            dueAt: event.data.retryAt,
            lastFailure: event.data.reason,
            updatedAt: event.data.failedAt,
          }
        );
      case 'SupplyPointPopulateRequestReleased':
        return (
          row && {
            ...row,
            status: 'PENDING',
            attempt: event.data.attempt - 1,
            leaseExpiresAt: null,
            dueAt: null,
            updatedAt: event.data.releasedAt,
          }
        );
      case 'SupplyPointImported':
        return row && { ...row, status: 'IMPORTED', leaseExpiresAt: null, dueAt: null, updatedAt: event.data.importedAt };
      case 'SupplyPointPopulateRequestErrored':
        return (
          row && {
            ...row,
            status: 'ERRORED',
            leaseExpiresAt: null,
            dueAt: null,
            erroredReason: event.data.reason,
            updatedAt: event.data.erroredAt,
          }
        );
      default:
        return assertNever(event);
    }
  },
});
