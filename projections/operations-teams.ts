import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { defineProjection } from './projection.js';

/** Operations teams that processed accounts can be assigned to. */
export const operationsTeams = sqliteTable('operations_teams', {
  name: text('name').primaryKey(),
  createdAt: text('created_at').notNull(),
});
export type OperationsTeamRow = typeof operationsTeams.$inferSelect;

export const operationsTeamsProjection = defineProjection<typeof operationsTeams, OperationsTeamRow>({
  name: 'operations_teams',
  version: 1,
  table: operationsTeams,
  handles: ['OperationsTeamCreated'],
  keyOf: ({ event }) => (event.type === 'OperationsTeamCreated' ? { name: event.data.name } : null),
  evolve(row, { event }) {
    switch (event.type) {
      case 'OperationsTeamCreated':
        return { name: event.data.name, createdAt: event.data.createdAt };
      default:
        return row;
    }
  },
});
