import { execFile } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import { createImportSupplier, createOperationsTeam } from '../../src/application/operator.js';
import { validateAccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { openLedger } from '../../src/ledger.js';
import { loadExample, operator, SUPPLIER, TEAM, tempDatabaseFile } from '../support/ledger.js';
import { createExampleProducts } from '../support/products.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { BIN, CLI_TEST_TIMEOUT_MS, PROJECT_ROOT, cliEnv, expectedOperatorActor, storedEvents, type CliResult } from './run-cli.js';

function run(env: Record<string, string | undefined>, args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT, env: cliEnv(env), timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? error.code : 0;
      if (typeof code !== 'number') return reject(new Error(`did not exit normally: ${error?.message}\n${stderr}`));
      resolve({ code, stdout, stderr });
    });
  });
}

describe('import-ledger emails send / list', () => {
  let db: { file: string; cleanup: () => void };
  let sink: SmtpSink;

  beforeEach(async () => {
    db = tempDatabaseFile();
    sink = await startSmtpSink();
    const ledger = await openLedger({ sqliteFile: db.file });
    try {
      await createImportSupplier(ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: true, documentRoot: null }, operator);
      await createOperationsTeam(ledger, TEAM, operator);
      await createExampleProducts(ledger);
      const validated = validateAccountPayload(loadExample('account-domestic.json'));
      if (!validated.ok) throw new Error('example must validate');
      await stageAccount(ledger, validated.data, operator);
      await processAccount(
        ledger,
        { importSupplier: SUPPLIER, externalAccountNumber: validated.data.external_account_number, operationsTeamName: TEAM, dryRun: false },
        operator,
      );
    } finally {
      await ledger.close();
    }
  });
  afterEach(async () => {
    await sink.close();
    db.cleanup();
  });

  it(
    'without LEDGER_SMTP_URL nothing is sent; with it the due emails are sent once, recorded with the operator as actor',
    async () => {
      const unconfigured = await run({ LEDGER_DATABASE: db.file, LEDGER_SMTP_URL: undefined }, ['emails', 'send']);
      expect(unconfigured.code).toBe(0);
      expect(unconfigured.stderr).toMatch(/LEDGER_SMTP_URL is not set/);
      expect(unconfigured.stderr).toMatch(/done: 0 sent, 0 to retry, 0 failed; 1 queued/);

      const sent = await run({ LEDGER_DATABASE: db.file, LEDGER_SMTP_URL: sink.url }, ['emails', 'send']);
      expect(sent.code).toBe(0);
      expect(sent.stderr).toMatch(/sent +A-[0-9A-F]{8}-welcome-0 to claire\.dubois@example\.fr \(attempt 1\)/);
      expect(sent.stderr).toMatch(/done: 1 sent, 0 to retry, 0 failed; 0 queued/);
      expect(sink.received.map((m) => m.to)).toEqual([['claire.dubois@example.fr']]);

      const again = await run({ LEDGER_DATABASE: db.file, LEDGER_SMTP_URL: sink.url }, ['emails', 'send']);
      expect(again.stderr).toMatch(/done: 0 sent/);
      expect(sink.received).toHaveLength(1);

      const list = await run({ LEDGER_DATABASE: db.file }, ['emails', 'list', '--status', 'sent']);
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(/A-[0-9A-F]{8}-welcome-0 +LEGACY_ENERGIE\/LEG-0000001 +claire\.dubois@example\.fr +SENT +1/);
      const bad = await run({ LEDGER_DATABASE: db.file }, ['emails', 'list', '--status', 'lost']);
      expect(bad.code).toBe(2);

      const mailerEvents = storedEvents(db.file).filter((e) => e.type === 'CustomerEmailSendClaimed' || e.type === 'CustomerEmailSent');
      expect(mailerEvents.map((e) => [e.type, e.metadata['actor']])).toEqual([
        ['CustomerEmailSendClaimed', expectedOperatorActor()],
        ['CustomerEmailSent', expectedOperatorActor()],
      ]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
