import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { recordSources } from '../events/account-records.js';
import { defineProjection } from './projection.js';

/**
 * One row per note of an imported account (spec 4.9), numbered from 1 per account in creation order: notes
 * created through notes/create/, brought by the staged payload at process time, or pinned by the ledger when
 * it moved transactions into the open statement period. WITHOUT ROWID on SQLite (small rows: an insert
 * writes one b-tree), which only its migration says.
 */
export const accountNotes = sqliteTable(
  'account_notes',
  {
    importSupplier: text('import_supplier').notNull(),
    externalAccountNumber: text('external_account_number').notNull(),
    sequence: integer('sequence').notNull(),
    body: text('body'),
    /** As the caller gave it, or the server clock (YYYY-MM-DDTHH:MM:SSZ) when it gave none. */
    createdAt: text('created_at').notNull(),
    createdAtGiven: integer('created_at_given', { mode: 'boolean' }).notNull(),
    isPinned: integer('is_pinned', { mode: 'boolean' }).notNull(),
    unpinAt: text('unpin_at'),
    /** JSON array of the document paths, relative to the supplier's document root. */
    documentPaths: text('document_paths').notNull(),
    source: text('source', { enum: recordSources }).notNull(),
    recordedAt: text('recorded_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.importSupplier, t.externalAccountNumber, t.sequence] })],
);
export type AccountNoteRow = typeof accountNotes.$inferSelect;

export const accountNotesProjection = defineProjection(accountNotes)({
  name: 'account_notes',
  version: 1,
  keyOf: ({ event }) => ({ importSupplier: event.data.importSupplier, externalAccountNumber: event.data.externalAccountNumber, sequence: event.data.sequence }),
  evolve: {
    AccountNoteCreated: (_row, { event, recordedAt }) => ({ ...event.data, documentPaths: JSON.stringify(event.data.documentPaths), recordedAt }),
  },
});
