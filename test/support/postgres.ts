import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { skipBecause } from './skip.js';
import { databaseUrl, TEST_SERVER_URL } from './postgres-setup.js';

/** Whether the PostgreSQL tests can run; under CI=true a missing server is a failure, never a silent skip. */
export function postgresAvailable(): boolean {
  const state = inject('postgres');
  if ('template' in state) return true;
  if (process.env['CI'] === 'true') throw new Error(`the PostgreSQL tests need a server under CI: ${state.unavailable}`);
  return false;
}

/** `describe.runIf(...)`-style guard that also names why the tests are skipped. */
export function skipWithoutPostgres(): boolean {
  return skipBecause(postgresAvailable() ? null : `PostgreSQL tests: ${(inject('postgres') as { unavailable: string }).unavailable}`);
}

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** Databases given back by earlier tests of this worker: emptied, ready for the next one. */
const spare: string[] = [];

/**
 * A database of its own, migrated and empty: one given back by an earlier
 * test of this worker (emptied, a few ms), else a new clone of the migrated
 * template (about 200 ms). `drop` empties it and keeps it for the next test;
 * the global teardown drops them all.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const reused = spare.pop();
  return reused ? recycled(reused) : cloneTemplate();
}

function recycled(name: string): TestDatabase {
  return {
    url: databaseUrl(name),
    drop: async () => {
      await empty(name);
      spare.push(name);
    },
  };
}

/**
 * Empties every table of the ledger (drizzle's migration journal, in its own schema, stays), in one
 * transaction. A test leaves a few rows per table, and DELETE removes them in a few ms where TRUNCATE
 * makes new files for every table and index (tens to hundreds of ms, for every test ledger of the
 * "postgres" project). A table with a trigger of its own (events: append-only, it refuses DELETE) is
 * truncated, as its trigger allows.
 */
async function empty(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl(name) });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; guarded: boolean }>(
      `SELECT c.relname AS name, EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal) AS guarded
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')`,
    );
    const guarded = rows.filter((r) => r.guarded).map((r) => `"${r.name}"`);
    const statements = [
      ...rows.filter((r) => !r.guarded).map((r) => `DELETE FROM "${r.name}"`),
      ...(guarded.length > 0 ? [`TRUNCATE ${guarded.join(', ')}`] : []),
    ];
    if (statements.length > 0) await client.query(`BEGIN; ${statements.join('; ')}; COMMIT`);
  } finally {
    await client.end();
  }
}

async function cloneTemplate(): Promise<TestDatabase> {
  const state = inject('postgres');
  if (!('template' in state)) throw new Error(state.unavailable);
  const name = `t_${state.template.slice('ledger_template_'.length)}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${state.template}`);
  } finally {
    await admin.end();
  }
  return recycled(name);
}

/** int8 (positions, counts, amounts) as a JS number, as the ledger's own connections read it (an unsafe one stays detectable). */
const int8AsNumber = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Runs one statement on a connection of its own; returns the rows it read.
 * int8 values are strings (pg's default) unless `numbers` asks for JS numbers.
 */
export async function executeOn(url: string, sql: string, options: { numbers?: boolean } = {}): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url, ...(options.numbers ? { types: int8AsNumber } : {}) });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}
