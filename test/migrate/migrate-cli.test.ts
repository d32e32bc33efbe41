import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOperationsTeam } from '../../src/application/operator.js';
import { BIN, CLI_TEST_TIMEOUT_MS, cliEnv } from '../cli/run-cli.js';
import { operator } from '../support/ledger.js';
import { createExampleProducts } from '../support/products.js';
import { freePort } from '../support/net.js';
import { SUPPLIER, TEAM, countOf, duplicates, reportLines, startService, writeFolder, type Folder, type RunningService } from './migrate-support.js';

interface Spawned {
  readonly code: Promise<number | null>;
  readonly kill: () => void;
  readonly interrupt: () => void;
  output(): string;
}

/** Where the runs start: a run without --report writes its journal in the working folder, never the repository's. */
const WORKING_FOLDER = mkdtempSync(join(tmpdir(), 'migrate-cli-'));

/** `import-ledger migrate ...` as a real process, as an operator runs it. */
function spawnMigrate(args: readonly string[], env: Record<string, string | undefined> = {}): Spawned {
  const child = spawn(process.execPath, [BIN, 'migrate', ...args], {
    cwd: WORKING_FOLDER,
    env: cliEnv({ LEDGER_MIGRATE_RETRY_BASE_MS: '5', LEDGER_MIGRATE_PROGRESS_MS: '200', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    code: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    kill: () => child.kill('SIGKILL'),
    interrupt: () => child.kill('SIGINT'),
    output: () => output,
  };
}

const journalLines = (file: string, step: string): number =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.includes(`"step":"${step}"`)).length : 0;

describe('import-ledger migrate, the command', () => {
  let service: RunningService;
  let folder: Folder;
  beforeEach(async () => {
    service = await startService();
  });
  afterEach(async () => {
    await service.stop();
    folder?.cleanup();
  });

  it(
    'a run killed with SIGKILL midway and run again finishes with every account imported once and every record stored once',
    async () => {
      folder = writeFolder({ accounts: 200, withRecords: (i) => i % 2 === 0 });
      const report = join(folder.work, 'report.csv');
      const journal = `${report}.journal.ndjson`;
      const args = [folder.dir, '--url', service.base, '--supplier', SUPPLIER, '--team', TEAM, '--report', report, '--concurrency', '8'];
      const first = spawnMigrate(args, { LEDGER_API_KEY: service.apiKey });
      const deadline = Date.now() + 60_000;
      while (journalLines(journal, 'accounts') < 40 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      first.kill();
      expect(await first.code).toBeNull(); // killed, not finished
      const settledBefore = journalLines(journal, 'accounts');
      expect(settledBefore).toBeGreaterThanOrEqual(40);
      expect(settledBefore).toBeLessThan(200);

      const second = spawnMigrate(args, { LEDGER_API_KEY: service.apiKey });
      expect(await second.code, second.output()).toBe(0);
      expect(second.output()).toContain(`resuming: the journal ${journal} holds`);
      expect(await countOf(service, 'AccountProcessed')).toBe(200);
      expect(await countOf(service, 'LedgerTransactionAdded')).toBe(200);
      expect(await duplicates(service)).toEqual({ processed: 0, notes: 0, transactions: 0 });
      // The second report has a line per item: what the journal settled, and what this run did.
      const lines = readFileSync(report, 'utf8').trim().split('\r\n').slice(1);
      expect(lines.filter((l) => l.startsWith('accounts,'))).toHaveLength(200);
      expect(lines.filter((l) => l.startsWith('notes,'))).toHaveLength(100);
      expect(lines.filter((l) => l.includes(',failed,'))).toEqual([]);
      expect(lines.filter((l) => l.startsWith('accounts,') && l.includes('journal: imported')).length).toBeGreaterThanOrEqual(settledBefore);
      // The summary for scripts: one JSON line on stdout.
      expect(second.output()).toMatch(/\{"summary":\{"byOutcome":\{"imported":\d+/);
    },
    CLI_TEST_TIMEOUT_MS * 2,
  );

  it(
    'Ctrl-C stops after the requests in flight with exit 130, and the same command resumes',
    async () => {
      folder = writeFolder({ accounts: 120 });
      const report = join(folder.work, 'report.ndjson');
      const journal = `${report}.journal.ndjson`;
      const args = [folder.dir, '--url', service.base, '--supplier', SUPPLIER, '--team', TEAM, '--report', report, '--api-key', service.apiKey];
      const first = spawnMigrate(args);
      const deadline = Date.now() + 60_000;
      while (journalLines(journal, 'accounts') < 20 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      first.interrupt();
      expect(await first.code, first.output()).toBe(130);
      expect(first.output()).toContain('stopping after the requests in flight');
      expect(first.output()).toContain('interrupted: run the same command again to resume');
      // Every account the service imported is in the journal: the requests in flight finished and were recorded.
      const imported = await countOf(service, 'AccountProcessed');
      expect(journalLines(journal, 'accounts')).toBe(imported);
      expect(imported).toBeLessThan(120);
      const second = spawnMigrate(args);
      expect(await second.code, second.output()).toBe(0);
      expect(await countOf(service, 'AccountProcessed')).toBe(120);
      expect(await duplicates(service)).toEqual({ processed: 0, notes: 0, transactions: 0 });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'a journal kept for another service (a second one, or this one after its database was reset) stops the run with exit 2 before anything is sent; --fresh migrates',
    async () => {
      folder = writeFolder({ accounts: 9 });
      // No --report: the journal is ./migrate-<SUPPLIER>.journal.ndjson, where the README's walk-through leaves it.
      const journal = join(WORKING_FOLDER, `migrate-${SUPPLIER}.journal.ndjson`);
      const other = await startService();
      try {
        const args = (base: string) => [folder.dir, '--url', base, '--supplier', SUPPLIER, '--team', TEAM];
        const first = spawnMigrate(args(service.base), { LEDGER_API_KEY: service.apiKey });
        expect(await first.code, first.output()).toBe(0);
        expect(journalLines(journal, 'accounts')).toBe(9);

        const elsewhere = spawnMigrate(args(other.base), { LEDGER_API_KEY: other.apiKey });
        expect(await elsewhere.code, elsewhere.output()).toBe(2);
        expect(elsewhere.output()).toContain(`the journal ${journal} belongs to service ${await service.ledger.serviceId()}`);
        expect(elsewhere.output()).toContain(`this run is service ${await other.ledger.serviceId()}`);
        expect(elsewhere.output()).toContain('--fresh');
        expect(other.posts).toEqual([]);

        const fresh = spawnMigrate([...args(other.base), '--fresh'], { LEDGER_API_KEY: other.apiKey });
        expect(await fresh.code, fresh.output()).toBe(0);
        expect(await countOf(other, 'AccountProcessed')).toBe(9);
        // The journal is the second service's now: a run against the first one stops in its turn.
        const back = spawnMigrate(args(service.base), { LEDGER_API_KEY: service.apiKey });
        expect(await back.code, back.output()).toBe(2);
      } finally {
        await other.stop();
        rmSync(journal, { force: true });
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'makes the folder --report names when it does not exist, and refuses (exit 2, before any request) a --report that cannot be a file',
    async () => {
      folder = writeFolder({ accounts: 2 });
      const report = join(folder.work, 'out', 'run-1', 'report.ndjson');
      const run = spawnMigrate([folder.dir, '--url', service.base, '--supplier', SUPPLIER, '--team', TEAM, '--api-key', service.apiKey, '--report', report]);
      expect(await run.code, run.output()).toBe(0);
      expect(readFileSync(report, 'utf8').split('\n').filter((line) => line.includes('"step":"accounts"'))).toHaveLength(2);
      expect(journalLines(`${report}.journal.ndjson`, 'accounts')).toBe(2);

      // Nothing listens at this URL: a refusal that came after a request would be "no token" and exit 1.
      const nowhere = `http://127.0.0.1:${await freePort()}`;
      writeFileSync(join(folder.work, 'a-file'), '');
      const underAFile = spawnMigrate([folder.dir, '--url', nowhere, '--supplier', SUPPLIER, '--team', TEAM, '--api-key', 'x', '--report', join(folder.work, 'a-file', 'report.ndjson')]);
      expect(await underAFile.code, underAFile.output()).toBe(2);
      expect(underAFile.output()).toContain('cannot make its folder');
      const aFolder = spawnMigrate([folder.dir, '--url', nowhere, '--supplier', SUPPLIER, '--team', TEAM, '--api-key', 'x', '--report', join(folder.work, 'out')]);
      expect(await aFolder.code, aFolder.output()).toBe(2);
      expect(aFolder.output()).toContain('is a folder');
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'stops before its first write (exit 2, nothing staged) when the team does not exist, or when the folder has no products.json and the service lacks a product its accounts name',
    async () => {
      folder = writeFolder({ accounts: 3 });
      const args = (team: string) => [folder.dir, '--url', service.base, '--supplier', SUPPLIER, '--team', team, '--api-key', service.apiKey];
      const noTeam = spawnMigrate(args('Migration'));
      expect(await noTeam.code, noTeam.output()).toBe(2);
      expect(noTeam.output()).toBe(
        'error: the service has no operations team "Migration" (--team)\nhint: team names are exact; an operator creates one with: import-ledger team create NAME\n',
      );
      expect(service.posts).toEqual([]);

      rmSync(join(folder.dir, 'products.json'));
      const noProducts = spawnMigrate(args(TEAM));
      expect(await noProducts.code, noProducts.output()).toBe(2);
      expect(noProducts.output()).toContain(
        'error: the folder has no products.json and the service lacks 2 of the 2 products its accounts name: ELEC-FIXE-2025 (named by LEG-0000001), GAZ-FIXE-2025 (named by LEG-0000001)\nhint: migrate the products first',
      );
      expect(service.posts).toEqual([]);
      expect(await countOf(service, 'AccountStaged')).toBe(0);

      // With the products on the service and a team whose name needs encoding, the same folder migrates.
      await createExampleProducts(service.ledger);
      await createOperationsTeam(service.ledger, 'Équipe migration 2', operator);
      const migrated = spawnMigrate(args('Équipe migration 2'));
      expect(await migrated.code, migrated.output()).toBe(0);
      expect(migrated.output()).toContain('products: the 2 products the accounts name exist');
      expect(await countOf(service, 'AccountProcessed')).toBe(3);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'exits 1 when some items failed (NDJSON report), 2 on bad usage, and prints its help',
    async () => {
      folder = writeFolder({ accounts: 3, invalid: (i) => i === 2 });
      const report = join(folder.work, 'report.ndjson');
      const run = spawnMigrate([folder.dir, '--url', service.base, '--supplier', SUPPLIER, '--team', TEAM, '--api-key', service.apiKey, '--report', report]);
      expect(await run.code, run.output()).toBe(1);
      expect(reportLines(folder).filter((l) => l.outcome === 'failed').map((l) => l.id)).toEqual(['LEG-0000002']);
      expect(run.output()).toContain('failed with account_failed_validation: 1');

      // Bad usage: the line and where the usage is.
      const pointer = "(see 'import-ledger migrate --help' for usage)";
      const noKey = spawnMigrate([folder.dir, '--url', service.base, '--supplier', SUPPLIER, '--team', TEAM], { LEDGER_API_KEY: undefined });
      expect(await noKey.code).toBe(2);
      expect(noKey.output()).toBe(`error: no API key: give --api-key or set LEDGER_API_KEY\n${pointer}\n`);
      const noTeam = spawnMigrate([folder.dir, '--url', service.base, '--supplier', SUPPLIER, '--api-key', 'x']);
      expect(await noTeam.code).toBe(2);
      expect(noTeam.output()).toBe(`error: required option '--team <NAME>' not specified\n${pointer}\n`);
      // What the service or the disk refuses: the line alone (with its hint), never the usage.
      const badKey = spawnMigrate([folder.dir, '--url', service.base, '--supplier', SUPPLIER, '--team', TEAM, '--api-key', 'ilk_not-a-key']);
      expect(await badKey.code).toBe(2);
      expect(badKey.output()).toBe('error: the service refused the API key (authentication_failed): check --api-key or LEDGER_API_KEY\n');
      // Over HTTP a supplier outside the key's scope is not told apart from one that does not exist (403 for both).
      const misspelt = spawnMigrate([folder.dir, '--url', service.base, '--supplier', `${SUPPLIER}_TYPO`, '--team', TEAM, '--api-key', service.apiKey]);
      expect(await misspelt.code).toBe(2);
      expect(misspelt.output()).toContain(`error: listing the accounts of ${SUPPLIER}_TYPO answered 403: does the supplier exist, and is the key scoped to it?\n`);
      expect(misspelt.output()).not.toContain('Usage:');
      const notAFolder = spawnMigrate([join(folder.dir, 'nope'), '--url', service.base, '--supplier', SUPPLIER, '--team', TEAM, '--api-key', 'x']);
      expect(await notAFolder.code).toBe(2);
      expect(notAFolder.output()).toBe(`error: ${join(folder.dir, 'nope')} is not a folder\n`);
      const help = spawnMigrate(['--help']);
      expect(await help.code).toBe(0);
      expect(help.output()).toContain('--stage-only');
      // docs/migrate.md#concurrency gives why 32 requests are in flight unless --concurrency says otherwise.
      expect(help.output()).toMatch(/--concurrency <N>\s+requests in flight at once \(1-64\) \(default: 32\)/);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
