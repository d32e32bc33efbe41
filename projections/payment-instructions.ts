import { primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { defineProjection } from './projection.js';

/**
 * The vendor-verified payment instructions of imported accounts (spec 4.12), one row per (account,
 * reference). `vendorDetails` is the vendor's JSON answer as given; `vendorStatus` its `status` field.
 */
export const paymentInstructions = sqliteTable(
  'payment_instructions',
  {
    importSupplier: text('import_supplier').notNull(),
    externalAccountNumber: text('external_account_number').notNull(),
    reference: text('reference').notNull(),
    platformAccountNumber: text('platform_account_number').notNull(),
    vendor: text('vendor').notNull(),
    type: text('type').notNull(),
    vendorStatus: text('vendor_status').notNull(),
    vendorDetails: text('vendor_details', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.importSupplier, t.externalAccountNumber, t.reference] })],
);
export type PaymentInstructionRow = typeof paymentInstructions.$inferSelect;

/** The `status` field of a vendor's answer ('' when it has none). */
export const vendorStatus = (details: Record<string, unknown>): string => (typeof details['status'] === 'string' ? details['status'] : '');

export const paymentInstructionsProjection = defineProjection(paymentInstructions)({
  name: 'payment_instructions',
  version: 1,
  keyOf: ({ event }) => ({ importSupplier: event.data.importSupplier, externalAccountNumber: event.data.externalAccountNumber, reference: event.data.reference }),
  evolve: { PaymentInstructionCreated: (_row, { event }) => ({ ...event.data, vendorStatus: vendorStatus(event.data.vendorDetails) }) },
});
