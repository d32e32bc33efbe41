import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { defineProjection } from './projection.js';

/** Operations teams that processed accounts can be assigned to. */
export const operationsTeams = sqliteTable('operations_teams', {
  name: text('name').primaryKey(),
  createdAt: text('created_at').notNull(),
});

export const operationsTeamsProjection = defineProjection(operationsTeams)({
  name: 'operations_teams',
  version: 1,
  keyOf: ({ event }) => ({ name: event.data.name }),
  evolve: { OperationsTeamCreated: (_row, { event }) => ({ name: event.data.name, createdAt: event.data.createdAt }) },
});
