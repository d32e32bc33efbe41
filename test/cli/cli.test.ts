import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/application/context.js';
import { createImportSupplier } from '../../src/application/operator.js';
import { openLedger } from '../../src/ledger.js';
import { operator, tempDatabaseFile } from '../support/ledger.js';
import { CLI_TEST_TIMEOUT_MS, expectedOperatorActor, readDatabase, runCli, storedEvents } from './run-cli.js';

/** The operator's commands, each of which must answer --help. */
const COMMANDS = [
  [],
  ['serve'],
  ['supplier', 'create'],
  ['supplier', 'set-status'],
  ['supplier', 'list'],
  ['supplier', 'set-config'],
  ['team', 'create'],
  ['api-key', 'create'],
  ['api-key', 'revoke'],
  ['account', 'skip'],
  ['account', 'set-transfer-status'],
  ['account', 'cancel-creation'],
  ['config', 'set'],
  ['export', 'reconciliation'],
  ['webhook', 'add'],
  ['webhook', 'replay'],
] as const;

let db: { file: string; cleanup: () => void };
beforeEach(() => {
  db = tempDatabaseFile();
});
afterEach(() => db.cleanup());

async function withSupplier(code: string): Promise<void> {
  const ledger = await openLedger({ sqliteFile: db.file });
  try {
    await createImportSupplier(ledger, { code, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  } finally {
    await ledger.close();
  }
}

describe('import-ledger --help', () => {
  it(
    'prints usage and exits 0 for the program and every command',
    async () => {
      // Two at a time: each run starts tsx, and the machine may have few cores.
      const results: { command: readonly string[]; code: number; stdout: string }[] = [];
      for (let i = 0; i < COMMANDS.length; i += 2) {
        const batch = COMMANDS.slice(i, i + 2);
        const runs = await Promise.all(batch.map((command) => runCli(db.file, [...command, '--help'])));
        runs.forEach((run, j) => results.push({ command: batch[j] ?? [], code: run.code, stdout: run.stdout }));
      }
      for (const { command, code, stdout } of results) {
        expect({ command, code }).toEqual({ command, code: 0 });
        expect(stdout).toContain(`Usage: ${['import-ledger', ...command].join(' ')}`);
      }
      const program = results[0]?.stdout ?? '';
      for (const group of ['serve', 'supplier', 'team', 'api-key', 'account', 'config']) expect(program).toContain(group);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('a misspelt option or command', () => {
  it(
    'is named with the closest known one (exit 2), before any required option it may have been meant for',
    async () => {
      const [option, required, command] = await Promise.all([
        runCli(db.file, ['migrate', '.', '--url', 'http://127.0.0.1:1', '--suplier', 'LEGACY_ENERGIE', '--team', 'Migrations']),
        runCli(db.file, ['migrate', '.', '--url', 'http://127.0.0.1:1', '--team', 'Migrations']),
        runCli(db.file, ['suplier', 'list']),
      ]);
      expect(option.code).toBe(2);
      expect(option.stderr).toBe("error: unknown option '--suplier'\n(Did you mean --supplier?)\n(see 'import-ledger migrate --help' for usage)\n");
      // Without the typo, the missing option is what is reported, still without the usage text.
      expect(required.code).toBe(2);
      expect(required.stderr).toBe("error: required option '--supplier <CODE>' not specified\n(see 'import-ledger migrate --help' for usage)\n");
      expect(command.code).toBe(2);
      expect(command.stderr).toContain("error: unknown command 'suplier'\n(Did you mean supplier?)");
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('import-ledger supplier', () => {
  it(
    'creates, lists and changes the status of suppliers; refuses a duplicate and a bad status',
    async () => {
      expect(await runCli(db.file, ['supplier', 'create', 'ACME'])).toMatchObject({ code: 0 });
      const withOptions = await runCli(db.file, [
        'supplier', 'create', 'SLOW_CO', '--status', 'Paused', '--send-emails', '--document-root', 'imports/slow',
      ]);
      expect(withOptions.code).toBe(0);

      const duplicate = await runCli(db.file, ['supplier', 'create', 'ACME']);
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toContain('import_supplier_already_exists');
      expect(duplicate.stdout).toBe('');

      const badStatus = await runCli(db.file, ['supplier', 'set-status', 'ACME', 'Finished']);
      expect(badStatus.code).toBe(2);
      expect(badStatus.stderr).toMatch(/Ongoing, Paused, Complete/);
      // A usage error is its line and where the usage is, not the usage text itself.
      expect(badStatus.stderr).toContain("(see 'import-ledger supplier set-status --help' for usage)");
      expect(badStatus.stderr).not.toContain('Usage:');

      expect(await runCli(db.file, ['supplier', 'set-status', 'ACME', 'Complete'])).toMatchObject({ code: 0 });

      const list = await runCli(db.file, ['supplier', 'list', '--json']);
      expect(list.code).toBe(0);
      const rows = JSON.parse(list.stdout) as Record<string, unknown>[];
      const byCode = Object.fromEntries(rows.map((row) => [row['code'], row]));
      expect(Object.keys(byCode).sort()).toEqual(['ACME', 'SLOW_CO']);
      expect(byCode['ACME']).toMatchObject({ status: 'Complete', send_emails: false, document_root: null });
      expect(byCode['SLOW_CO']).toMatchObject({ status: 'Paused', send_emails: true, document_root: 'imports/slow' });

      const events = storedEvents(db.file);
      expect(events.map((e) => e.type)).toEqual(['ImportSupplierCreated', 'ImportSupplierCreated', 'ImportSupplierStatusChanged']);
      for (const event of events) expect(event.metadata['actor']).toBe(expectedOperatorActor());
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'set-config changes only the options given, and refuses an unknown supplier',
    async () => {
      expect(await runCli(db.file, ['supplier', 'create', 'ACME'])).toMatchObject({ code: 0 });
      expect(await runCli(db.file, ['supplier', 'set-config', 'ACME', '--send-emails', '--document-root', 'acme-docs'])).toMatchObject({ code: 0 });
      const unchanged = await runCli(db.file, ['supplier', 'set-config', 'ACME', '--no-document-root']);
      expect(unchanged.code).toBe(0);
      const row = readDatabase(db.file, (sqlite) => sqlite.prepare("SELECT send_emails, document_root FROM import_suppliers WHERE code = 'ACME'").get());
      expect(row).toEqual({ send_emails: 1, document_root: null });
      const events = storedEvents(db.file).filter((e) => e.type === 'ImportSupplierConfigChanged');
      expect(events.map((e) => e.data)).toEqual([
        expect.objectContaining({ sendEmails: true, documentRoot: 'acme-docs' }),
        expect.not.objectContaining({ sendEmails: expect.anything() }),
      ]);
      const unknown = await runCli(db.file, ['supplier', 'set-config', 'NOPE', '--send-emails']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('import_supplier_not_found');
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('import-ledger api-key', () => {
  it(
    'create prints only the key on stdout and the key id on stderr; revoke marks it revoked',
    async () => {
      await withSupplier('ACME');
      await withSupplier('BETA');
      const created = await runCli(db.file, ['api-key', 'create', '--supplier', 'ACME', '--supplier', 'BETA', '--label', 'ops laptop']);
      expect(created.code).toBe(0);
      const lines = created.stdout.split('\n').filter((line) => line !== '');
      expect(lines).toHaveLength(1);
      const key = lines[0] ?? '';
      expect(key).toMatch(/^ilk_\S+$/);
      expect(created.stdout).toBe(`${key}\n`);
      const keyId = /\b(key_[0-9a-f]+)\b/.exec(created.stderr)?.[1];
      expect(keyId, created.stderr).toBeTruthy();
      expect(created.stderr).not.toContain(key);

      const row = readDatabase(db.file, (sqlite) => sqlite.prepare('SELECT * FROM api_keys WHERE key_id = ?').get(keyId)) as
        | Record<string, unknown>
        | undefined;
      expect(row).toMatchObject({ key_hash: hashApiKey(key), label: 'ops laptop', revoked_at: null });
      expect(JSON.parse(String(row?.['suppliers']))).toEqual(['ACME', 'BETA']);

      expect(await runCli(db.file, ['api-key', 'revoke', keyId ?? ''])).toMatchObject({ code: 0 });
      const revoked = readDatabase(db.file, (sqlite) =>
        sqlite.prepare('SELECT revoked_at FROM api_keys WHERE key_id = ?').get(keyId),
      ) as { revoked_at: string | null };
      expect(revoked.revoked_at).not.toBeNull();

      const keyEvents = storedEvents(db.file).filter((e) => e.type.startsWith('ApiKey'));
      expect(keyEvents.map((e) => e.type)).toEqual(['ApiKeyCreated', 'ApiKeyRevoked']);
      for (const event of keyEvents) expect(event.metadata['actor']).toBe(expectedOperatorActor());
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('import-ledger config set process-concurrency-limit', () => {
  const limit = () =>
    readDatabase(db.file, (sqlite) =>
      sqlite.prepare("SELECT value FROM service_config WHERE key = 'process-concurrency-limit'").get(),
    ) as { value: number | null } | undefined;

  it(
    'sets a whole number, turns it off, and refuses anything else with a usage error',
    async () => {
      expect(await runCli(db.file, ['config', 'set', 'process-concurrency-limit', '3'])).toMatchObject({ code: 0 });
      expect(limit()?.value).toBe(3);

      expect(await runCli(db.file, ['config', 'set', 'process-concurrency-limit', 'off'])).toMatchObject({ code: 0 });
      expect(limit()?.value ?? null).toBeNull();

      const invalid = await runCli(db.file, ['config', 'set', 'process-concurrency-limit', '0']);
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toMatch(/whole number/);
      expect(limit()?.value ?? null).toBeNull();

      const events = storedEvents(db.file);
      expect(events.map((e) => [e.type, e.data['value']])).toEqual([
        ['ServiceConfigChanged', 3],
        ['ServiceConfigChanged', null],
      ]);
      for (const event of events) expect(event.metadata['actor']).toBe(expectedOperatorActor());
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
