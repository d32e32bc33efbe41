import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { populateSupplyTypes } from '../events/supply-point-populate.js';
import { defineProjection } from './projection.js';

/**
 * The supply points fetched from the network operators, one row per (supply type, identifier), refreshed
 * in place when imported again. `details` is the operator's JSON object as returned.
 */
export const supplyPoints = sqliteTable(
  'supply_points',
  {
    supplyType: text('supply_type', { enum: populateSupplyTypes }).notNull(),
    identifier: text('identifier').notNull(),
    customerCategory: text('customer_category').notNull(),
    addressLine1: text('address_line1').notNull(),
    addressPostcode: text('address_postcode').notNull(),
    addressCity: text('address_city').notNull(),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    lastBatchId: text('last_batch_id').notNull(),
    importCount: integer('import_count').notNull(),
    firstImportedAt: text('first_imported_at').notNull(),
    lastImportedAt: text('last_imported_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.supplyType, t.identifier] })],
);
export type SupplyPointRow = typeof supplyPoints.$inferSelect;

export const supplyPointsProjection = defineProjection(supplyPoints)({
  name: 'supply_points',
  version: 1,
  keyOf: ({ event }) => ({ supplyType: event.data.supplyType, identifier: event.data.identifier }),
  evolve: {
    SupplyPointImported: (row, { event }) => ({
      supplyType: event.data.supplyType,
      identifier: event.data.identifier,
      customerCategory: event.data.customerCategory,
      addressLine1: event.data.address.line1,
      addressPostcode: event.data.address.postcode,
      addressCity: event.data.address.city,
      details: event.data.details,
      lastBatchId: event.data.batchId,
      importCount: (row?.importCount ?? 0) + 1,
      firstImportedAt: row?.firstImportedAt ?? event.data.importedAt,
      lastImportedAt: event.data.importedAt,
    }),
  },
});
