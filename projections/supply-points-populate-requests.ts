import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { populateSupplyTypes } from '../events/supply-point-populate.js';
import { defineProjection } from './projection.js';

const populateRequestStatuses = ['PENDING', 'CLAIMED', 'IMPORTED', 'ERRORED'] as const;

/**
 * One row per populate request: the worker's queue (PENDING and CLAIMED rows in `queue_position` order,
 * the request event's global position) and the batch status's lists.
 */
export const supplyPointPopulateRequests = sqliteTable(
  'supply_point_populate_requests',
  {
    batchId: text('batch_id').notNull(),
    sequence: integer('sequence').notNull(),
    queuePosition: integer('queue_position').notNull(),
    supplyType: text('supply_type', { enum: populateSupplyTypes }).notNull(),
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

export const supplyPointPopulateRequestsProjection = defineProjection(supplyPointPopulateRequests)({
  name: 'supply_point_populate_requests',
  version: 1,
  keyOf: ({ event }) => ({ batchId: event.data.batchId, sequence: event.data.sequence }),
  evolve: {
    SupplyPointPopulateRequested: (_row, { event, globalPosition }) => ({
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
    }),
    SupplyPointPopulateRequestClaimed: (row, { event }) =>
      row && {
        ...row,
        status: 'CLAIMED',
        attempt: event.data.attempt,
        leaseExpiresAt: event.data.leaseExpiresAt,
        dueAt: null,
        updatedAt: event.data.claimedAt,
      },
    SupplyPointPopulateAttemptFailed: (row, { event }) =>
      row && {
        ...row,
        status: 'PENDING',
        leaseExpiresAt: null,
        dueAt: event.data.retryAt,
        lastFailure: event.data.reason,
        updatedAt: event.data.failedAt,
      },
    SupplyPointPopulateRequestReleased: (row, { event }) =>
      row && {
        ...row,
        status: 'PENDING',
        attempt: event.data.attempt - 1,
        leaseExpiresAt: null,
        dueAt: null,
        updatedAt: event.data.releasedAt,
      },
    SupplyPointImported: (row, { event }) => row && { ...row, status: 'IMPORTED', leaseExpiresAt: null, dueAt: null, updatedAt: event.data.importedAt },
    SupplyPointPopulateRequestErrored: (row, { event }) =>
      row && {
        ...row,
        status: 'ERRORED',
        leaseExpiresAt: null,
        dueAt: null,
        erroredReason: event.data.reason,
        updatedAt: event.data.erroredAt,
      },
  },
});
