import { execFile } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPopulateBatch } from '../../src/application/supply-point-populate.js';
import { openLedger } from '../../src/ledger.js';
import { startFakeOperator, type FakeOperator } from '../support/fake-operator.js';
import { operator, tempDatabaseFile } from '../support/ledger.js';
import { BIN, CLI_TEST_TIMEOUT_MS, PROJECT_ROOT, cliEnv, readDatabase, runCli, storedEvents, type CliResult } from './run-cli.js';

function runWithEnv(env: Record<string, string | undefined>, args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT, env: cliEnv(env), timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? error.code : 0;
      if (typeof code !== 'number') return reject(new Error(`did not exit normally: ${error?.message}\n${stderr}`));
      resolve({ code, stdout, stderr });
    });
  });
}

let db: { file: string; cleanup: () => void };
beforeEach(() => {
  db = tempDatabaseFile();
});
afterEach(() => db.cleanup());

describe('import-ledger config set/get populate-rate-per-second', () => {
  it(
    'defaults to 5, takes a whole number of at least 1, and cannot be turned off',
    async () => {
      expect(await runCli(db.file, ['config', 'get', 'populate-rate-per-second'])).toMatchObject({ code: 0, stdout: '5\n' });
      expect(await runCli(db.file, ['config', 'set', 'populate-rate-per-second', '3'])).toMatchObject({ code: 0 });
      expect(await runCli(db.file, ['config', 'get', 'populate-rate-per-second'])).toMatchObject({ code: 0, stdout: '3\n' });

      const off = await runCli(db.file, ['config', 'set', 'populate-rate-per-second', 'off']);
      expect(off.code).toBe(2);
      expect(off.stderr).toMatch(/cannot be turned off/);
      const zero = await runCli(db.file, ['config', 'set', 'populate-rate-per-second', '0']);
      expect(zero.code).toBe(2);

      expect(storedEvents(db.file).map((e) => [e.type, e.data['key'], e.data['value']])).toEqual([
        ['ServiceConfigChanged', 'populate-rate-per-second', 3],
      ]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('import-ledger populate run', () => {
  let fake: FakeOperator;
  beforeEach(async () => {
    fake = await startFakeOperator();
  });
  afterEach(() => fake.close());

  it(
    'drains the queue against the operators, prints progress on stderr, and exits 0',
    async () => {
      const ledger = await openLedger({ sqliteFile: db.file });
      let batchId: string;
      try {
        ({ batchId } = await createPopulateBatch(
          ledger,
          {
            request: { prm_ids: ['09111642617347', '30002851234567'], pce_ids: ['GI123456'], customer_category: 'Domestic' },
            importSuppliers: ['LEGACY_ENERGIE'],
          },
          operator,
        ));
      } finally {
        await ledger.close();
      }
      fake.script('09111642617347', [{ kind: 'found' }]);
      fake.script('30002851234567', [{ kind: 'not-found', message: 'PRM inconnu' }]);

      const result = await runWithEnv(
        { LEDGER_DATABASE: db.file, LEDGER_ELECTRICITY_OPERATOR_URL: fake.url, LEDGER_GAS_OPERATOR_URL: undefined },
        ['populate', 'run'],
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^imported PRM 09111642617347 \(batch .+, attempt 1\)$/m);
      expect(result.stderr).toMatch(/^errored  PRM 30002851234567 .*: PRM inconnu$/m);
      expect(result.stderr).toMatch(/^errored  PCE GI123456 .*LEDGER_GAS_OPERATOR_URL/m);
      expect(result.stderr).toMatch(/^done: 1 imported, 2 errored/m);

      const batch = readDatabase(db.file, (sqlite) =>
        sqlite.prepare('SELECT pending_count, imported_count, errored_count FROM supply_point_populate_batches WHERE batch_id = ?').get(batchId),
      );
      expect(batch).toEqual({ pending_count: 0, imported_count: 1, errored_count: 2 });
      const points = readDatabase(db.file, (sqlite) => sqlite.prepare('SELECT supply_type, identifier FROM supply_points').all());
      expect(points).toEqual([{ supply_type: 'ELECTRICITY', identifier: '09111642617347' }]);
      const workerEvents = storedEvents(db.file).filter((e) => e.streamId.startsWith('supply-point-populate-request:'));
      expect(new Set(workerEvents.map((e) => e.metadata['correlationId']))).toEqual(new Set([batchId]));

      // Nothing left: a second run has nothing to do.
      const again = await runWithEnv({ LEDGER_DATABASE: db.file, LEDGER_ELECTRICITY_OPERATOR_URL: fake.url }, ['populate', 'run']);
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(/^done: 0 imported, 0 errored/m);
      expect(fake.hitsFor('09111642617347')).toBe(1);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
