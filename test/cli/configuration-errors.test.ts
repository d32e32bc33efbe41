import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDatabaseFile } from '../support/ledger.js';
import { freePort } from '../support/net.js';
import { skipWithoutPostgres } from '../support/postgres.js';
import { TEST_SERVER_URL } from '../support/postgres-setup.js';
import { CLI_TEST_TIMEOUT_MS, runCli } from './run-cli.js';

/**
 * README: exit 2 is bad usage or configuration. A database the configuration names that does not exist or
 * cannot be reached, and a variable that does not parse, are configuration errors for every command, `serve`
 * included: one line naming the variable, exit 2.
 */
const serveArgs = async () => ({ args: ['serve'], env: { PORT: String(await freePort()), LOG_LEVEL: 'silent' } });

describe('a PostgreSQL database that does not exist', () => {
  if (skipWithoutPostgres()) return;
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/ledger_absent_${process.pid}_${Date.now().toString(36)}`;
  const location = { postgresUrl: url.toString() };

  it(
    'exits 2, naming LEDGER_DATABASE_URL and the missing database, for a CLI command and for serve',
    async () => {
      const serve = await serveArgs();
      const [command, server] = await Promise.all([runCli(location, ['supplier', 'list']), runCli(location, serve.args, serve.env)]);
      for (const run of [command, server]) {
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toContain(`error: LEDGER_DATABASE_URL ${url.toString()} cannot be used: database "${url.pathname.slice(1)}" does not exist\n`);
        expect(run.stderr).not.toContain('Usage:');
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('a database that cannot be reached or opened, and a bad variable', () => {
  it(
    'exit 2 with one line naming the variable: a PostgreSQL server that does not answer, a file that is not a database, a PORT and a URL that do not parse',
    async () => {
      const db = tempDatabaseFile();
      try {
        writeFileSync(db.file, 'not a database, whatever its name says: '.repeat(40));
        const unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/ledger`;
        const [noServer, notADatabase, badPort, badUrl] = await Promise.all([
          runCli({ postgresUrl: unreachable }, ['supplier', 'list']),
          runCli(db.file, ['supplier', 'list']),
          runCli(db.file, ['serve'], { PORT: 'eighty' }),
          runCli({ postgresUrl: 'mysql://127.0.0.1/ledger' }, ['team', 'create', 'Migrations']),
        ]);
        expect(noServer).toMatchObject({ code: 2, stderr: expect.stringMatching(new RegExp(`^error: LEDGER_DATABASE_URL ${unreachable} cannot be used: connect ECONNREFUSED`)) });
        expect(notADatabase).toMatchObject({ code: 2, stderr: `error: LEDGER_DATABASE ${db.file} cannot be used: file is not a database\n` });
        expect(badPort).toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: invalid configuration: PORT: /) });
        expect(badUrl).toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: invalid configuration: LEDGER_DATABASE_URL: /) });
      } finally {
        db.cleanup();
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
