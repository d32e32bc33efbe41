import { defineConfig } from 'drizzle-kit';

/**
 * The PostgreSQL store's migrations. The schema is derived from the canonical
 * (sqlite-core) tables by src/store/postgres/pg-schema.ts; `npm run db:generate:pg`
 * writes the DDL into drizzle-pg/. Generation does not connect to the database.
 */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/postgres/pg-schema.ts',
  out: './drizzle-pg',
  dbCredentials: { url: process.env.LEDGER_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
});
