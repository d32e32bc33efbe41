import { index, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { defineProjection } from './projection.js';

/**
 * Which business of the supplier holds each contract identifier. The primary key is the uniqueness rule;
 * the row key also names the business, so a second business claiming a taken identifier (two requests that
 * both checked first) violates the key and is retried on fresh facts instead of overwriting the first.
 */
export const businessContracts = sqliteTable(
  'business_contracts',
  {
    importSupplier: text('import_supplier').notNull(),
    contractIdentifier: text('contract_identifier').notNull(),
    externalBusinessIdentifier: text('external_business_identifier').notNull(),
    validFromDate: text('valid_from_date'),
    addedAt: text('added_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.importSupplier, t.contractIdentifier] }),
    index('business_contracts_business_idx').on(t.importSupplier, t.externalBusinessIdentifier),
  ],
);

export const businessContractsProjection = defineProjection(businessContracts)({
  name: 'business_contracts',
  version: 1,
  keyOf: ({ event }) => ({
    importSupplier: event.data.importSupplier,
    contractIdentifier: event.data.identifier,
    externalBusinessIdentifier: event.data.externalBusinessIdentifier,
  }),
  evolve: {
    BusinessContractAdded(_row, { event }) {
      const validFrom = event.data.contract['valid_from_date'];
      return {
        importSupplier: event.data.importSupplier,
        contractIdentifier: event.data.identifier,
        externalBusinessIdentifier: event.data.externalBusinessIdentifier,
        validFromDate: typeof validFrom === 'string' ? validFrom : null,
        addedAt: event.data.addedAt,
      };
    },
  },
});
