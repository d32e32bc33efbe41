import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: [
    './src/store/schema.ts',
    './projections/import-suppliers.ts',
    './projections/operations-teams.ts',
    './projections/api-keys.ts',
    './projections/account-import-processes.ts',
    './projections/service-config.ts',
  ],
  out: './drizzle',
  dbCredentials: { url: process.env.LEDGER_DATABASE ?? './data/ledger.db' },
});
