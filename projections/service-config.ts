import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { defineProjection } from './projection.js';

/** Service-wide settings changed by operators; a missing row or a null value means "off". */
export const serviceConfig = sqliteTable('service_config', {
  key: text('key').primaryKey(),
  value: integer('value'),
  updatedAt: text('updated_at').notNull(),
});
export type ServiceConfigRow = typeof serviceConfig.$inferSelect;

export const serviceConfigProjection = defineProjection<typeof serviceConfig, ServiceConfigRow>({
  name: 'service_config',
  version: 1,
  table: serviceConfig,
  handles: ['ServiceConfigChanged'],
  keyOf: ({ event }) => (event.type === 'ServiceConfigChanged' ? { key: event.data.key } : null),
  evolve(row, { event }) {
    switch (event.type) {
      case 'ServiceConfigChanged':
        return { key: event.data.key, value: event.data.value, updatedAt: event.data.changedAt };
      default:
        return row;
    }
  },
});
