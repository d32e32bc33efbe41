import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: ['./src/store/schema.ts', './src/store/idempotency-schema.ts', './src/store/relay-schema.ts', './projections/*.ts'],
  out: './drizzle',
  dbCredentials: { url: process.env.LEDGER_DATABASE ?? './data/ledger.db' },
});
