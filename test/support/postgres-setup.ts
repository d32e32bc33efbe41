import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrateLedger } from '../../src/store/postgres/pg-database.js';

/** The server the PostgreSQL tests use (a database of its own is created per test ledger, from a migrated template). */
export const TEST_SERVER_URL = process.env['LEDGER_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated template database the PostgreSQL tests clone, or why there is none. */
    postgres: { template: string } | { unavailable: string };
  }
}

const databaseUrl = (name: string) => {
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * vitest global setup: creates and migrates one template database per run
 * (closing every connection to it, or it could not be cloned), and drops it
 * and the test databases left behind at the end. Without a reachable server,
 * the PostgreSQL tests say so and skip, except under CI=true, where they fail.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
  try {
    await admin.connect();
  } catch (error) {
    project.provide('postgres', { unavailable: `PostgreSQL is not reachable at ${TEST_SERVER_URL}: ${error instanceof Error ? error.message : String(error)}` });
    return async () => undefined;
  }
  const template = `ledger_template_${process.pid}_${Date.now().toString(36)}`;
  await admin.query(`CREATE DATABASE ${template}`);
  await migrateLedger(databaseUrl(template));
  project.provide('postgres', { template });
  return async () => {
    const { rows } = await admin.query<{ name: string }>(
      `SELECT datname AS name FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [template, `t_${template.slice('ledger_template_'.length)}_%`],
    );
    for (const { name } of rows) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
}

export { databaseUrl };
