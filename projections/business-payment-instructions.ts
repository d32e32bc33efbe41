import { primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { vendorStatus } from './payment-instructions.js';
import { defineProjection } from './projection.js';

/**
 * The vendor-verified payment instructions of businesses (business-payment-instruction/create/), one row per
 * (business, reference). `accounts` lists the business's accounts the instruction is for (external and
 * platform numbers), `vendorDetails` is the vendor's JSON answer as given, `vendorStatus` its `status` field.
 */
export const businessPaymentInstructions = sqliteTable(
  'business_payment_instructions',
  {
    importSupplier: text('import_supplier').notNull(),
    externalBusinessIdentifier: text('external_business_identifier').notNull(),
    reference: text('reference').notNull(),
    vendor: text('vendor').notNull(),
    type: text('type').notNull(),
    validFrom: text('valid_from'),
    accounts: text('accounts', { mode: 'json' }).$type<{ externalAccountNumber: string; platformAccountNumber: string }[]>().notNull(),
    vendorStatus: text('vendor_status').notNull(),
    vendorDetails: text('vendor_details', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.importSupplier, t.externalBusinessIdentifier, t.reference] })],
);
export type BusinessPaymentInstructionRow = typeof businessPaymentInstructions.$inferSelect;

export const businessPaymentInstructionsProjection = defineProjection(businessPaymentInstructions)({
  name: 'business_payment_instructions',
  version: 1,
  keyOf: ({ event }) => ({
    importSupplier: event.data.importSupplier,
    externalBusinessIdentifier: event.data.externalBusinessIdentifier,
    reference: event.data.reference,
  }),
  evolve: { BusinessPaymentInstructionCreated: (_row, { event }) => ({ ...event.data, vendorStatus: vendorStatus(event.data.vendorDetails) }) },
});
