import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { importSupplierStatuses } from '../events/import-supplier.js';
import { defineProjection } from './projection.js';

/** Import suppliers with their status and data-import configuration. */
export const importSuppliers = sqliteTable('import_suppliers', {
  code: text('code').primaryKey(),
  status: text('status', { enum: importSupplierStatuses }).notNull(),
  sendEmails: integer('send_emails', { mode: 'boolean' }).notNull(),
  documentRoot: text('document_root'),
  /** The operations team of v2 scheduled creations whose request names none; null: none. */
  defaultOperationsTeamName: text('default_operations_team_name'),
  /** Stream version of the supplier: commands that depend on the status guard on it. */
  streamVersion: integer('stream_version').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
  /** The last `import-ledger verify` of the supplier: when, by which key, whether the two agreed and its counts (JSON); null: never. */
  lastVerifiedAt: text('last_verified_at'),
  lastVerifiedBy: text('last_verified_by'),
  lastVerification: text('last_verification', { mode: 'json' }).$type<{ agree: boolean; summary: Record<string, { identical: number; missing: number; extra: number; different: number }>; serviceId: string | null }>(),
});
export type ImportSupplierRow = typeof importSuppliers.$inferSelect;

export const importSuppliersProjection = defineProjection(importSuppliers)({
  name: 'import_suppliers',
  version: 4,
  keyOf: ({ event }) => ({ code: event.data.code }),
  evolve: {
    ImportSupplierCreated: (_row, { event, streamPosition }) => ({
      code: event.data.code,
      status: event.data.status,
      sendEmails: event.data.sendEmails,
      documentRoot: event.data.documentRoot,
      defaultOperationsTeamName: null,
      streamVersion: streamPosition,
      createdAt: event.data.createdAt,
      updatedAt: event.data.createdAt,
      lastVerifiedAt: null,
      lastVerifiedBy: null,
      lastVerification: null,
    }),
    ImportSupplierStatusChanged: (row, { event, streamPosition }) =>
      row && { ...row, status: event.data.to, streamVersion: streamPosition, updatedAt: event.data.changedAt },
    ImportSupplierConfigChanged: (row, { event, streamPosition }) =>
      row && {
        ...row,
        sendEmails: event.data.sendEmails ?? row.sendEmails,
        documentRoot: event.data.documentRoot === undefined ? row.documentRoot : event.data.documentRoot,
        defaultOperationsTeamName: event.data.defaultOperationsTeamName === undefined ? row.defaultOperationsTeamName : event.data.defaultOperationsTeamName,
        streamVersion: streamPosition,
        updatedAt: event.data.changedAt,
      },
    ImportSupplierVerified: (row, { event, streamPosition, metadata }) =>
      row && {
        ...row,
        lastVerifiedAt: event.data.verifiedAt,
        lastVerifiedBy: metadata.actor,
        lastVerification: { agree: event.data.agree, summary: event.data.summary, serviceId: event.data.serviceId },
        streamVersion: streamPosition,
      },
  },
});
