import { sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { assertNever } from '../src/domain/assert-never.js';
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

export const apiKeysProjection = defineProjection({
  name: 'api_keys',
  version: 1,
  table: apiKeys,
  handles: ['ApiKeyCreated', 'ApiKeyRevoked'],
  keyOf: ({ event }) => ({ keyId: event.data.keyId }),
  evolve(row, { event }) {
    switch (event.type) {
      case 'ApiKeyCreated':
        return {
          keyId: event.data.keyId,
          keyHash: event.data.keyHash,
          suppliers: [...event.data.suppliers],
          label: event.data.label,
          createdAt: event.data.createdAt,
          revokedAt: null,
        };
      case 'ApiKeyRevoked':
        return row && { ...row, revokedAt: row.revokedAt ?? event.data.revokedAt };
      default:
        return assertNever(event);
    }
  },
});
