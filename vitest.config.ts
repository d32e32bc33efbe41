import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql ships both ESM and CJS builds; without this alias vitest loads one for our schema and the
    // other for @hono/graphql-server, and graphql refuses a schema "from another module or realm".
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // One migrated PostgreSQL template per run, cloned per test ledger (test/support/postgres.ts).
    globalSetup: ['test/support/postgres-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
