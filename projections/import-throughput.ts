import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { assertNever } from '../src/domain/assert-never.js';
import { defineProjection } from './projection.js';

/**
 * Accounts imported per supplier and minute (`minute`: the UTC minute,
 * `2026-11-23T12:04`), v1 processes and v2 scheduled runs alike (both append
 * AccountProcessed). The progress endpoint reads the last hour: at most 60
 * rows of one primary key range.
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

export const minuteOf = (instant: string): string => instant.slice(0, 16);

export const importThroughputProjection = defineProjection({
  name: 'import_throughput',
  version: 1,
  table: importThroughputTable,
  handles: ['AccountProcessed'],
  keyOf: ({ event }) => ({ importSupplier: event.data.importSupplier, minute: minuteOf(event.data.processedAt) }),
  evolve(row, { event }) {
    switch (event.type) {
      case 'AccountProcessed':
        return { importSupplier: event.data.importSupplier, minute: minuteOf(event.data.processedAt), imports: (row?.imports ?? 0) + 1 };
      default:
        return assertNever(event.type);
    }
  },
});

/**
 * When a supplier's migration started (its first staged account) and last
 * moved (any account event, refusals included): one row per supplier.
 */
export const importActivityTable = sqliteTable('import_activity', {
  importSupplier: text('import_supplier').primaryKey(),
  firstStagedAt: text('first_staged_at'),
  lastActivityAt: text('last_activity_at').notNull(),
});
export type ImportActivityRow = typeof importActivityTable.$inferSelect;

const earlier = (a: string | null, b: string): string => (a !== null && a <= b ? a : b);
const later = (a: string | null, b: string): string => (a !== null && a >= b ? a : b);

export const importActivityProjection = defineProjection({
  name: 'import_activity',
  version: 1,
  table: importActivityTable,
  handles: [
    'AccountStaged',
    'AccountRestaged',
    'AccountProcessed',
    'AccountMarkedToSkip',
    'AccountTransferStatusChanged',
    'AccountProcessDryRunSucceeded',
    'AccountImportAttemptRefused',
  ],
  keyOf: ({ event }) => ({ importSupplier: event.data.importSupplier }),
  evolve(row, { event }) {
    const at = (() => {
      switch (event.type) {
        case 'AccountStaged':
        case 'AccountRestaged':
          return event.data.stagedAt;
        case 'AccountProcessed':
          return event.data.processedAt;
        case 'AccountMarkedToSkip':
          return event.data.markedAt;
        case 'AccountTransferStatusChanged':
          return event.data.changedAt;
        case 'AccountProcessDryRunSucceeded':
          return event.data.ranAt;
        case 'AccountImportAttemptRefused':
          return event.data.refusedAt;
        default:
          return assertNever(event);
      }
    })();
    return {
      importSupplier: event.data.importSupplier,
      firstStagedAt: event.type === 'AccountStaged' ? earlier(row?.firstStagedAt ?? null, at) : (row?.firstStagedAt ?? null),
      lastActivityAt: later(row?.lastActivityAt ?? null, at),
    };
  },
});
