import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { defineProjection } from './projection.js';

/** Service-wide settings changed by operators; a missing row or a null value means "off". */
export const serviceConfig = sqliteTable('service_config', {
  key: text('key').primaryKey(),
  value: integer('value'),
  updatedAt: text('updated_at').notNull(),
});

export const serviceConfigProjection = defineProjection(serviceConfig)({
  name: 'service_config',
  version: 1,
  keyOf: ({ event }) => ({ key: event.data.key }),
  evolve: { ServiceConfigChanged: (_row, { event }) => ({ key: event.data.key, value: event.data.value, updatedAt: event.data.changedAt }) },
});
