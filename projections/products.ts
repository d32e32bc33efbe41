import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { applyRatesAdded, productMarkets, type ProductParams, type ProductRate } from '../events/product.js';
import { defineProjection } from './projection.js';

/**
 * The shared product catalogue: one row per product code with its fixed attributes and its whole rate
 * timeline (ProductRate, in the order added). The rates are one JSON column because a RatesAdded touches
 * several rates at once while a row projection touches one row per event; every read wants them together.
 */
export const products = sqliteTable('products', {
  code: text('code').primaryKey(),
  marketName: text('market_name', { enum: productMarkets }).notNull(),
  fullName: text('full_name').notNull(),
  displayName: text('display_name').notNull(),
  description: text('description'),
  notes: text('notes'),
  brand: text('brand'),
  availableFromDate: text('available_from_date').notNull(),
  isHidden: integer('is_hidden', { mode: 'boolean' }),
  params: text('params', { mode: 'json' }).$type<ProductParams>().notNull(),
  rates: text('rates', { mode: 'json' }).$type<ProductRate[]>().notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});
export type ProductRow = typeof products.$inferSelect;

export const productsProjection = defineProjection(products)({
  name: 'products',
  version: 1,
  keyOf: ({ event }) => ({ code: event.data.code }),
  evolve: {
    ProductCreated: (row, { event }) => row ?? { ...event.data, rates: [], updatedAt: event.data.createdAt },
    RatesAdded: (row, { event }) => row && { ...row, rates: applyRatesAdded(row.rates, event), updatedAt: event.data.addedAt },
  },
});
