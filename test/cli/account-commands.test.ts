import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleAccountCreation } from '../../src/application/account-creations.js';
import { processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import { validateAccountPayload, type AccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { DomainError } from '../../src/domain/errors.js';
import { openLedger } from '../../src/ledger.js';
import { SUPPLIER, TEAM, loadExample, operator, tempDatabaseFile } from '../support/ledger.js';
import { createExampleProducts } from '../support/products.js';
import { CLI_TEST_TIMEOUT_MS, expectedOperatorActor, readDatabase, runCli, storedEvents } from './run-cli.js';

const PROCESSED = 'LEG-CLI-PROCESSED';
const STILL_PENDING = 'LEG-CLI-PENDING';
const STAGED_ONLY = 'LEG-CLI-STAGED';
const TO_SKIP = 'LEG-CLI-SKIP';
const SCHEDULED = 'LEG-CLI-SCHEDULED';

function domesticAccount(externalAccountNumber: string): AccountPayload {
  const result = validateAccountPayload({ ...loadExample('account-domestic.json'), external_account_number: externalAccountNumber });
  if (!result.ok) throw new Error(`the domestic example must validate: ${JSON.stringify(result.errors)}`);
  expect(result.data.import_supplier).toBe(SUPPLIER);
  return result.data;
}

function accountRow(file: string, ext: string) {
  return readDatabase(file, (sqlite) =>
    sqlite
      .prepare('SELECT state, transfer_status FROM account_import_processes WHERE import_supplier = ? AND external_account_number = ?')
      .get(SUPPLIER, ext),
  ) as { state: string; transfer_status: string } | undefined;
}

describe('import-ledger account', () => {
  let db: { file: string; cleanup: () => void };
  // One database for the file (each CLI run costs a second); the tests touch disjoint accounts.
  beforeAll(async () => {
    db = tempDatabaseFile();
    // The supplier and the team come from the CLI; the accounts through the application, as the API would stage them.
    expect(await runCli(db.file, ['supplier', 'create', SUPPLIER])).toMatchObject({ code: 0 });
    expect(await runCli(db.file, ['team', 'create', TEAM])).toMatchObject({ code: 0 });
    const ledger = await openLedger({ sqliteFile: db.file });
    try {
      await createExampleProducts(ledger); // the products the example's agreements name
      for (const ext of [PROCESSED, STILL_PENDING, STAGED_ONLY, TO_SKIP]) await stageAccount(ledger, domesticAccount(ext), operator);
      for (const ext of [PROCESSED, STILL_PENDING]) {
        await processAccount(ledger, { importSupplier: SUPPLIER, externalAccountNumber: ext, operationsTeamName: TEAM, dryRun: false }, operator);
      }
    } finally {
      await ledger.close();
    }
  }, CLI_TEST_TIMEOUT_MS);
  afterAll(() => db.cleanup());

  it('team create recorded the team, with the operator as actor', () => {
    const teams = readDatabase(db.file, (sqlite) => sqlite.prepare('SELECT * FROM operations_teams').all()) as Record<string, unknown>[];
    expect(JSON.stringify(teams)).toContain(TEAM);
    const created = storedEvents(db.file).find((e) => e.type === 'OperationsTeamCreated');
    expect(created?.metadata['actor']).toBe(expectedOperatorActor());
  });

  it(
    'set-transfer-status walks PENDING -> IN_PROGRESS -> REJECTED -> IN_PROGRESS -> COMPLETED, and refuses what leaves that path',
    async () => {
      expect(accountRow(db.file, PROCESSED)).toEqual({ state: 'IMPORTED', transfer_status: 'PENDING' });
      for (const status of ['IN_PROGRESS', 'REJECTED', 'IN_PROGRESS', 'COMPLETED']) {
        const run = await runCli(db.file, ['account', 'set-transfer-status', SUPPLIER, PROCESSED, status]);
        expect({ status, code: run.code, stderr: run.stderr }).toMatchObject({ status, code: 0 });
        expect(accountRow(db.file, PROCESSED)?.transfer_status).toBe(status);
      }

      const backwards = await runCli(db.file, ['account', 'set-transfer-status', SUPPLIER, PROCESSED, 'IN_PROGRESS']);
      expect(backwards.code).toBe(1);
      expect(backwards.stderr).toContain('invalid_transfer_status_transition');
      expect(backwards.stderr).toMatch(/COMPLETED/);
      expect(accountRow(db.file, PROCESSED)?.transfer_status).toBe('COMPLETED');

      const skipping = await runCli(db.file, ['account', 'set-transfer-status', SUPPLIER, STILL_PENDING, 'COMPLETED']);
      expect(skipping.code).toBe(1);
      expect(skipping.stderr).toContain('invalid_transfer_status_transition');
      expect(accountRow(db.file, STILL_PENDING)?.transfer_status).toBe('PENDING');

      const notImported = await runCli(db.file, ['account', 'set-transfer-status', SUPPLIER, STAGED_ONLY, 'IN_PROGRESS']);
      expect(notImported.code).toBe(1);
      expect(notImported.stderr).toContain('account_not_imported');
      expect(accountRow(db.file, STAGED_ONLY)).toEqual({ state: 'STAGED', transfer_status: 'UNKNOWN' });

      const changes = storedEvents(db.file).filter((e) => e.type === 'AccountTransferStatusChanged');
      expect(changes.map((e) => [e.data['from'], e.data['to']])).toEqual([
        ['PENDING', 'IN_PROGRESS'],
        ['IN_PROGRESS', 'REJECTED'],
        ['REJECTED', 'IN_PROGRESS'],
        ['IN_PROGRESS', 'COMPLETED'],
      ]);
      for (const event of changes) expect(event.metadata['actor']).toBe(expectedOperatorActor());
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'skip marks a staged account so it can no longer be staged',
    async () => {
      const run = await runCli(db.file, ['account', 'skip', SUPPLIER, TO_SKIP]);
      expect(run.code).toBe(0);
      expect(accountRow(db.file, TO_SKIP)?.state).toBe('SKIPPED');
      const skipped = storedEvents(db.file).filter((e) => e.type === 'AccountMarkedToSkip');
      expect(skipped).toHaveLength(1);
      expect(skipped[0]?.metadata['actor']).toBe(expectedOperatorActor());

      const ledger = await openLedger({ sqliteFile: db.file });
      try {
        const restage = stageAccount(ledger, domesticAccount(TO_SKIP), operator);
        await expect(restage).rejects.toBeInstanceOf(DomainError);
        await expect(restage).rejects.toMatchObject({ code: 'account_marked_to_skip' });
      } finally {
        await ledger.close();
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'supplier set-config --default-team sets the v2 default team (which must exist); cancel-creation cancels a scheduled creation once',
    async () => {
      const unknown = await runCli(db.file, ['supplier', 'set-config', SUPPLIER, '--default-team', 'Nobody']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('operations_team_name_does_not_exist');
      expect(await runCli(db.file, ['supplier', 'set-config', SUPPLIER, '--default-team', TEAM])).toMatchObject({ code: 0 });
      const suppliers = readDatabase(db.file, (sqlite) => sqlite.prepare('SELECT default_operations_team_name AS team FROM import_suppliers').all());
      expect(suppliers).toEqual([{ team: TEAM }]);

      const ledger = await openLedger({ sqliteFile: db.file });
      try {
        const window = { start: new Date(Date.now() + 3_600_000).toISOString(), end: null };
        await scheduleAccountCreation(ledger, { payload: domesticAccount(SCHEDULED), operationsTeamName: undefined, isDryRun: false, window }, operator);
      } finally {
        await ledger.close();
      }
      const cancel = await runCli(db.file, ['account', 'cancel-creation', SUPPLIER, SCHEDULED]);
      expect(cancel).toMatchObject({ code: 0 });
      const status = readDatabase(db.file, (sqlite) =>
        sqlite.prepare('SELECT status, operations_team_name AS team FROM account_import_statuses WHERE external_account_number = ?').get(SCHEDULED),
      );
      expect(status).toEqual({ status: 'CANCELLED', team: TEAM });
      const again = await runCli(db.file, ['account', 'cancel-creation', SUPPLIER, SCHEDULED]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('account_creation_not_scheduled');
      const cancelled = storedEvents(db.file).filter((e) => e.type === 'AccountCreationCancelled');
      expect(cancelled.map((e) => e.metadata['actor'])).toEqual([expectedOperatorActor()]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
