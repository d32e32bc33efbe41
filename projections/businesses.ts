import { integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { defineProjection } from './projection.js';

/**
 * One row per business (spec 4.4): what the uniqueness answer and the account-to-contract link read.
 * `platform_business_id` is the BusinessCreated's global position, so a rebuild gives the same ids again.
 */
export const businesses = sqliteTable(
  'businesses',
  {
    importSupplier: text('import_supplier').notNull(),
    externalBusinessIdentifier: text('external_business_identifier').notNull(),
    platformBusinessId: integer('platform_business_id').notNull(),
    businessType: text('business_type').notNull(),
    companyName: text('company_name').notNull(),
    siret: text('siret').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.importSupplier, t.externalBusinessIdentifier] }),
    uniqueIndex('businesses_platform_business_id_unique').on(t.platformBusinessId),
  ],
);
export type BusinessRow = typeof businesses.$inferSelect;

export const businessesProjection = defineProjection(businesses)({
  name: 'businesses',
  version: 1,
  keyOf: ({ event }) => ({ importSupplier: event.data.importSupplier, externalBusinessIdentifier: event.data.externalBusinessIdentifier }),
  evolve: {
    BusinessCreated: (_row, { event, globalPosition }) => ({
      importSupplier: event.data.importSupplier,
      externalBusinessIdentifier: event.data.externalBusinessIdentifier,
      platformBusinessId: globalPosition,
      businessType: event.data.business.business_type,
      companyName: event.data.business.company_name,
      siret: event.data.business.siret,
      createdAt: event.data.createdAt,
    }),
  },
});
