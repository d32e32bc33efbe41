import { relative } from 'node:path';
import pg from 'pg';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The server the PostgreSQL tests use: the same default as test/support/postgres-setup.ts. */
const TEST_SERVER_URL = process.env['LEDGER_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Why the PostgreSQL server cannot be reached, or null when it can. */
async function postgresUnreachable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: TEST_SERVER_URL, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The test files that take longest, longest first. They are small files over shared suites (the store
 * contract, the endpoint fuzz) or files that drive a whole service, and without a results cache (CI, a
 * fresh checkout) vitest runs the largest files first: they would start last and leave one worker alone
 * with them at the end of the run.
 */
const LONGEST_FILES = [
  'test/store/sqlite/contract-writer-thread.test.ts',
  'test/store/postgres/contract.test.ts',
  'test/store/postgres/contract-small-batches.test.ts',
  'test/hardening/idempotency.test.ts',
  'test/cli/readiness.test.ts',
  'test/crash/sigkill.test.ts',
  'test/hardening/fuzz-second-half.test.ts',
  'test/hardening/fuzz-first-half.test.ts',
  'test/store/sqlite/contract.test.ts',
  'test/store/postgres/pipelined-batch.test.ts',
  'test/relay/webhook-sink.property.test.ts',
  'test/store/sqlite/contract-log-worker.test.ts',
  'test/store/postgres/server-restart.test.ts',
  'test/store/postgres/sigkill-instances.test.ts',
];

/** vitest's order (failed first, then longest or largest first), with LONGEST_FILES, of both projects, ahead of the rest. */
class LongestFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FILES.indexOf(relative(spec.project.config.root, spec.moduleId));
      return at === -1 ? LONGEST_FILES.length : at;
    };
    const sorted = await super.sort(files);
    return sorted.map((spec, at) => ({ spec, at, rank: rank(spec) })).sort((a, b) => a.rank - b.rank || a.at - b.at).map(({ spec }) => spec);
  }
}

/** What both projects share. Inline projects do not inherit the root's options (no `extends`), so they are spelled out here. */
const shared = {
  resolve: {
    // graphql ships both ESM and CJS builds; without this alias vitest loads one for our schema and the
    // other for @hono/graphql-server, and graphql refuses a schema "from another module or realm".
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
} satisfies TestProjectInlineConfiguration;

/** Every test, on the embedded SQLite store (test ledgers on temp files). */
const sqlite: TestProjectInlineConfiguration = {
  ...shared,
  test: { ...shared.test, name: 'sqlite', include: ['test/**/*.test.ts'] },
};

/**
 * The suites that go through the whole service (HTTP, hardening, crash) once more, with every test ledger
 * on a PostgreSQL database of its own (LEDGER_TEST_STORE=postgres: test/support/ledger.ts), cloned from the
 * template the global setup migrated and recycled with one TRUNCATE.
 */
const postgres: TestProjectInlineConfiguration = {
  ...shared,
  test: {
    ...shared.test,
    name: 'postgres',
    include: ['test/http/**/*.test.ts', 'test/hardening/**/*.test.ts', 'test/crash/**/*.test.ts'],
    env: { LEDGER_TEST_STORE: 'postgres' },
  },
};

export default defineConfig(async () => {
  // Without a server, the "postgres" project is left out with a warning, as the contract suite skips with
  // its reason; under CI=true it stays, and its tests fail (test/support/postgres.ts postgresAvailable()).
  const unreachable = process.env['CI'] === 'true' ? null : await postgresUnreachable();
  if (unreachable) console.warn(`\nThe "postgres" test project is left out: PostgreSQL is not reachable at ${TEST_SERVER_URL}: ${unreachable}\n`);
  return {
    resolve: shared.resolve,
    test: {
      // At the root only: it runs once per run (inline projects do not inherit it), makes the one migrated
      // template, and what it provides (inject('postgres')) reaches the tests of every project.
      globalSetup: ['test/support/postgres-setup.ts'],
      // Two test files at a time (vitest's default is one less than the cores: one, on a 2-core machine). Most
      // of a file's time is spent waiting (on PostgreSQL, on spawned CLI and server processes), so two share
      // the cores well: what keeps both projects within the time budget.
      maxWorkers: 2,
      sequence: { sequencer: LongestFilesFirst },
      projects: unreachable ? [sqlite] : [sqlite, postgres],
    },
  };
});
