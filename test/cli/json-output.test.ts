import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_OPTION_HELP } from '../../src/cli/context.js';
import { buildProgram } from '../../src/cli/main.js';
import { WEBHOOK_ADD_JSON_HELP } from '../../src/cli/webhook-commands.js';
import { tempDatabaseFile } from '../support/ledger.js';
import { CLI_TEST_TIMEOUT_MS, runCli } from './run-cli.js';

/** The one command whose `--json` is NDJSON: its output has no bound (a history of any length). */
const NDJSON = ['account history'];
/** The one command whose `--json` is one object: it creates one thing (test/cli/webhook-commands.test.ts runs it). */
const ONE_OBJECT = ['webhook add'];

function commandsWithJson(command: Command, path: readonly string[] = []): { name: string; help: string }[] {
  return command.commands.flatMap((sub) => {
    const here = [...path, sub.name()];
    const json = sub.options.find((option) => option.long === '--json');
    return [...(json ? [{ name: here.join(' '), help: json.description }] : []), ...commandsWithJson(sub, here)];
  });
}

/** One `--json` form: a listing prints one JSON document (an array of objects with snake_case fields), empty or not; `webhook add` one object. */
describe('--json', () => {
  let db: { file: string; cleanup: () => void };
  beforeAll(() => {
    db = tempDatabaseFile();
  });
  afterAll(() => db.cleanup());

  it('says the same in every --help: one JSON document; NDJSON only where the output has no bound, and its help says so', async () => {
    const found = commandsWithJson(await buildProgram());
    expect(found.map((c) => c.name).sort()).toEqual(['account history', 'api-key list', 'emails list', 'supplier list', 'webhook add', 'webhook deliveries', 'webhook list']);
    for (const { name, help } of found) {
      if (NDJSON.includes(name)) expect(help, name).toMatch(/^NDJSON, one JSON object per line, as a history has no bound/);
      else if (ONE_OBJECT.includes(name)) expect(help, name).toBe(WEBHOOK_ADD_JSON_HELP);
      else expect(help, name).toBe(JSON_OPTION_HELP);
    }
  });

  it(
    'supplier list, api-key list and emails list each print one JSON document, an array (empty too), with snake_case fields',
    async () => {
      for (const args of [['supplier', 'list', '--json'], ['api-key', 'list', '--json']]) {
        const empty = await runCli(db.file, args);
        expect({ args, code: empty.code, rows: JSON.parse(empty.stdout) as unknown }).toEqual({ args, code: 0, rows: [] });
      }
      for (const code of ['ACME', 'BETA']) expect(await runCli(db.file, ['supplier', 'create', code])).toMatchObject({ code: 0 });
      expect(await runCli(db.file, ['api-key', 'create', '--supplier', 'ACME', '--supplier', 'BETA'])).toMatchObject({ code: 0 });
      expect(await runCli(db.file, ['api-key', 'create', '--supplier', 'ACME', '--label', 'laptop'])).toMatchObject({ code: 0 });

      const suppliers = await runCli(db.file, ['supplier', 'list', '--json']);
      expect(JSON.parse(suppliers.stdout)).toEqual([
        { code: 'ACME', status: 'Ongoing', send_emails: false, document_root: null, default_team: null, created_at: expect.any(String) },
        { code: 'BETA', status: 'Ongoing', send_emails: false, document_root: null, default_team: null, created_at: expect.any(String) },
      ]);
      const keys = await runCli(db.file, ['api-key', 'list', '--json']);
      expect(JSON.parse(keys.stdout)).toEqual([
        { key_id: expect.stringMatching(/^key_/), suppliers: ['ACME', 'BETA'], label: null, created_at: expect.any(String), revoked_at: null },
        { key_id: expect.stringMatching(/^key_/), suppliers: ['ACME'], label: 'laptop', created_at: expect.any(String), revoked_at: null },
      ]);
      const emails = await runCli(db.file, ['emails', 'list', '--json']);
      expect({ code: emails.code, rows: JSON.parse(emails.stdout) as unknown }).toEqual({ code: 0, rows: [] });
    },
    CLI_TEST_TIMEOUT_MS * 2,
  );
});
