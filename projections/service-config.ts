import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { assertNever } from '../src/domain/assert-never.js';
import { defineProjection } from './projection.js';

/** Service-wide settings changed by operators; a missing row or a null value means "off". */
export const serviceConfig = sqliteTable('service_config', {
  key: text('key').primaryKey(),
  value: integer('value'),
  updatedAt: text('updated_at').notNull(),
});
export type ServiceConfigRow = typeof serviceConfig.$inferSelect;

export const serviceConfigProjection = defineProjection({
  name: 'service_config',
  version: 1,
  table: serviceConfig,
  handles: ['ServiceConfigChanged'],
  keyOf: ({ event }) => ({ key: event.data.key }),
  evolve(row, { event }) {
    switch (event.type) {
      case 'ServiceConfigChanged':
        return { key: event.data.key, value: event.data.value, updatedAt: event.data.changedAt };
      default:
        return assertNever(event.type);
    }
  },
});
