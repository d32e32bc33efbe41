import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { defineProjection } from './projection.js';

/** One row per populate batch with running counts of its requests: the batch status and its scope check. */
export const supplyPointPopulateBatches = sqliteTable('supply_point_populate_batches', {
  batchId: text('batch_id').primaryKey(),
  customerCategory: text('customer_category').notNull(),
  importSuppliers: text('import_suppliers', { mode: 'json' }).$type<string[]>().notNull(),
  requestCount: integer('request_count').notNull(),
  pendingCount: integer('pending_count').notNull(),
  importedCount: integer('imported_count').notNull(),
  erroredCount: integer('errored_count').notNull(),
  /** First time a worker took one of the batch's requests; null while the batch is untouched. */
  startedAt: text('started_at'),
  /** When the last pending request ended. */
  completedAt: text('completed_at'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});
export type SupplyPointPopulateBatchRow = typeof supplyPointPopulateBatches.$inferSelect;

export const supplyPointPopulateBatchesProjection = defineProjection(supplyPointPopulateBatches)({
  name: 'supply_point_populate_batches',
  version: 1,
  keyOf: ({ event }) => ({ batchId: event.data.batchId }),
  evolve: {
    SupplyPointPopulateBatchCreated(_row, { event }) {
      const requestCount = event.data.prmCount + event.data.pceCount;
      return {
        batchId: event.data.batchId,
        customerCategory: event.data.customerCategory,
        importSuppliers: [...event.data.importSuppliers],
        requestCount,
        pendingCount: requestCount,
        importedCount: 0,
        erroredCount: 0,
        startedAt: null,
        completedAt: requestCount === 0 ? event.data.createdAt : null,
        createdAt: event.data.createdAt,
        updatedAt: event.data.createdAt,
      };
    },
    SupplyPointPopulateRequestClaimed: (row, { event }) => row && { ...row, startedAt: row.startedAt ?? event.data.claimedAt, updatedAt: event.data.claimedAt },
    SupplyPointImported: (row, { event }) => row && ended(row, 'importedCount', event.data.importedAt),
    SupplyPointPopulateRequestErrored: (row, { event }) => row && ended(row, 'erroredCount', event.data.erroredAt),
  },
});

function ended(
  row: SupplyPointPopulateBatchRow,
  counter: 'importedCount' | 'erroredCount',
  at: string,
): SupplyPointPopulateBatchRow {
  const pendingCount = Math.max(0, row.pendingCount - 1);
  return {
    ...row,
    [counter]: row[counter] + 1,
    pendingCount,
    startedAt: row.startedAt ?? at,
    completedAt: pendingCount === 0 ? (row.completedAt ?? at) : null,
    updatedAt: at,
  };
}
