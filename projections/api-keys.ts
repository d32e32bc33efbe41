import { sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { defineProjection } from './projection.js';

/** API keys by hash, with the import suppliers each one is scoped to. The keys themselves are never stored. */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    keyId: text('key_id').primaryKey(),
    keyHash: text('key_hash').notNull(),
    suppliers: text('suppliers', { mode: 'json' }).$type<string[]>().notNull(),
    label: text('label'),
    createdAt: text('created_at').notNull(),
    revokedAt: text('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_key_hash_unique').on(t.keyHash)],
);
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export const apiKeysProjection = defineProjection(apiKeys)({
  name: 'api_keys',
  version: 1,
  keyOf: ({ event }) => ({ keyId: event.data.keyId }),
  evolve: {
    ApiKeyCreated: (_row, { event }) => ({
      keyId: event.data.keyId,
      keyHash: event.data.keyHash,
      suppliers: [...event.data.suppliers],
      label: event.data.label,
      createdAt: event.data.createdAt,
      revokedAt: null,
    }),
    ApiKeyRevoked: (row, { event }) => row && { ...row, revokedAt: row.revokedAt ?? event.data.revokedAt },
  },
});
