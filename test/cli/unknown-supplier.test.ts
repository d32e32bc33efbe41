import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { tempDatabaseFile } from '../support/ledger.js';
import { CLI_TEST_TIMEOUT_MS, runCli } from './run-cli.js';

const MISSPELT = 'LEGACY_ENERGY';

/** Each command that takes a supplier, with that supplier misspelt and its other arguments plausible. */
const WITH_UNKNOWN_SUPPLIER: Record<string, readonly string[]> = {
  'supplier set-status': ['supplier', 'set-status', MISSPELT, 'Paused'],
  'supplier set-config': ['supplier', 'set-config', MISSPELT, '--send-emails'],
  'api-key create': ['api-key', 'create', '--supplier', MISSPELT],
  'account skip': ['account', 'skip', MISSPELT, 'LEG-0000001'],
  'account set-transfer-status': ['account', 'set-transfer-status', MISSPELT, 'LEG-0000001', 'COMPLETED'],
  'account cancel-creation': ['account', 'cancel-creation', MISSPELT, 'LEG-0000001'],
  'account history': ['account', 'history', MISSPELT, 'LEG-0000001'],
  'emails list': ['emails', 'list', '--supplier', MISSPELT],
  'export reconciliation': ['export', 'reconciliation', MISSPELT],
  'webhook add': ['webhook', 'add', 'https://receiver.example/hooks', '--supplier', MISSPELT],
  'webhook list': ['webhook', 'list', '--supplier', MISSPELT],
};

/**
 * The commands whose arguments or options name an existing import supplier, read from the command tree.
 * Not `supplier create` (it makes one), nor `migrate` and `verify`: they act over HTTP with a key, and the service
 * answers a supplier outside the key's scope as it answers one that does not exist (test/migrate/migrate-cli.test.ts).
 */
function commandsTakingASupplier(command: Command, path: readonly string[] = []): string[] {
  return command.commands.flatMap((sub) => {
    const here = [...path, sub.name()];
    const name = here.join(' ');
    const takes =
      sub.registeredArguments.some((argument) => argument.name() === 'SUPPLIER' || (here[0] === 'supplier' && argument.name() === 'CODE')) ||
      sub.options.some((option) => option.long === '--supplier');
    return [...(takes && !['supplier create', 'migrate', 'verify'].includes(name) ? [name] : []), ...commandsTakingASupplier(sub, here)];
  });
}

describe('a CLI command given a supplier that does not exist', () => {
  let db: { file: string; cleanup: () => void };
  beforeAll(async () => {
    db = tempDatabaseFile();
    expect(await runCli(db.file, ['supplier', 'create', 'LEGACY_ENERGIE'])).toMatchObject({ code: 0 });
  }, CLI_TEST_TIMEOUT_MS);
  afterAll(() => db.cleanup());

  it('the table below covers every command that takes a supplier', async () => {
    expect(commandsTakingASupplier(await buildProgram()).sort()).toEqual(Object.keys(WITH_UNKNOWN_SUPPLIER).sort());
  });

  it.each(Object.entries(WITH_UNKNOWN_SUPPLIER))(
    '%s answers import_supplier_not_found (exit 1), not a missing account',
    async (_name, args) => {
      const run = await runCli(db.file, args);
      expect(run.stderr).toContain('(import_supplier_not_found)');
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
