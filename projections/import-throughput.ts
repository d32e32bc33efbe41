import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { isAccountImportOperation } from '../events/import-attempt.js';
import { defineProjection } from './projection.js';

/**
 * Accounts imported per supplier and UTC minute (`2026-11-23T12:04`), v1 processes and v2 scheduled runs
 * alike (both append AccountProcessed). The progress endpoint reads the last hour: at most 60 rows of one
 * primary key range.
 */
export const importThroughputTable = sqliteTable(
  'import_throughput',
  {
    importSupplier: text('import_supplier').notNull(),
    minute: text('minute').notNull(),
    imports: integer('imports').notNull(),
  },
  (t) => [primaryKey({ columns: [t.importSupplier, t.minute] })],
);
export type ImportThroughputRow = typeof importThroughputTable.$inferSelect;

const minuteOf = (instant: string): string => instant.slice(0, 16);

export const importThroughputProjection = defineProjection(importThroughputTable)({
  name: 'import_throughput',
  version: 1,
  keyOf: ({ event }) => ({ importSupplier: event.data.importSupplier, minute: minuteOf(event.data.processedAt) }),
  evolve: {
    AccountProcessed: (row, { event }) => ({
      importSupplier: event.data.importSupplier,
      minute: minuteOf(event.data.processedAt),
      imports: (row?.imports ?? 0) + 1,
    }),
  },
});

/** When a supplier's migration started (its first staged account) and last moved (any event of an account's import, refused attempts included). */
export const importActivityTable = sqliteTable('import_activity', {
  importSupplier: text('import_supplier').primaryKey(),
  firstStagedAt: text('first_staged_at'),
  lastActivityAt: text('last_activity_at').notNull(),
});
export type ImportActivityRow = typeof importActivityTable.$inferSelect;

const earlier = (a: string | null, b: string): string => (a !== null && a <= b ? a : b);
const later = (a: string | null, b: string): string => (a !== null && a >= b ? a : b);

/** The supplier's row after an account event at `at`; `staged` when that event is a first staging. */
const active = (row: ImportActivityRow | null, importSupplier: string, at: string, staged = false): ImportActivityRow => ({
  importSupplier,
  firstStagedAt: staged ? earlier(row?.firstStagedAt ?? null, at) : (row?.firstStagedAt ?? null),
  lastActivityAt: later(row?.lastActivityAt ?? null, at),
});

export const importActivityProjection = defineProjection(importActivityTable)({
  name: 'import_activity',
  version: 1,
  keyOf: ({ event }) => ({ importSupplier: event.data.importSupplier }),
  evolve: {
    AccountStaged: (row, { event }) => active(row, event.data.importSupplier, event.data.stagedAt, true),
    AccountRestaged: (row, { event }) => active(row, event.data.importSupplier, event.data.stagedAt),
    AccountProcessed: (row, { event }) => active(row, event.data.importSupplier, event.data.processedAt),
    AccountMarkedToSkip: (row, { event }) => active(row, event.data.importSupplier, event.data.markedAt),
    AccountTransferStatusChanged: (row, { event }) => active(row, event.data.importSupplier, event.data.changedAt),
    AccountProcessDryRunSucceeded: (row, { event }) => active(row, event.data.importSupplier, event.data.ranAt),
    // A refused record import (notes, transactions, ...) is not the migration moving.
    AccountImportAttemptRefused: (row, { event }) =>
      isAccountImportOperation(event.data.operation) ? active(row, event.data.importSupplier, event.data.refusedAt) : row,
  },
});
