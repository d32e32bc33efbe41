import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { assertNever } from '../src/domain/assert-never.js';
import { defineProjection } from './projection.js';

/** Operations teams that processed accounts can be assigned to. */
export const operationsTeams = sqliteTable('operations_teams', {
  name: text('name').primaryKey(),
  createdAt: text('created_at').notNull(),
});
export type OperationsTeamRow = typeof operationsTeams.$inferSelect;

export const operationsTeamsProjection = defineProjection({
  name: 'operations_teams',
  version: 1,
  table: operationsTeams,
  handles: ['OperationsTeamCreated'],
  keyOf: ({ event }) => ({ name: event.data.name }),
  evolve(row, { event }) {
    switch (event.type) {
      case 'OperationsTeamCreated':
        return { name: event.data.name, createdAt: event.data.createdAt };
      default:
        return assertNever(event.type);
    }
  },
});
