import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, CLI_TEST_TIMEOUT_MS, PROJECT_ROOT, cliEnv } from '../cli/run-cli.js';
import { SUPPLIER, TEAM, startService, type RunningService } from './migrate-support.js';

/** `import-ledger <args>` as a real process; resolves with its exit code and output. */
function cli(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: cliEnv({ LEDGER_MIGRATE_PROGRESS_MS: '200', ...env }) }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('import-ledger verify, the command, on the example folder (docs/migrate.md "Verify")', () => {
  let service: RunningService;
  let work: string;
  beforeEach(async () => {
    service = await startService();
    work = mkdtempSync(join(tmpdir(), 'verify-cli-'));
  });
  afterEach(async () => {
    await service.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it(
    'exits 0 on the folder just migrated, 1 once the folder changed (with the difference in the CSV report), 2 on bad usage',
    async () => {
      const dir = join(work, 'migration');
      cpSync(join(PROJECT_ROOT, 'examples', 'migration'), dir, { recursive: true });
      const broken = join(dir, 'accounts', 'LEG-0000003.json');
      writeFileSync(broken, readFileSync(broken, 'utf8').replace('"12345"', '"+33612345679"'));
      const env = { LEDGER_API_KEY: service.apiKey };
      const migrated = await cli(['migrate', dir, '--url', service.base, '--supplier', SUPPLIER, '--team', TEAM, '--report', join(work, 'migration.csv')], env);
      expect(migrated.code, migrated.stderr).toBe(0);

      const report = join(work, 'verify.csv');
      const same = await cli(['verify', dir, '--url', service.base, '--supplier', SUPPLIER, '--report', report], env);
      expect(same.code, same.stderr).toBe(0);
      expect(same.stderr).toContain('verification done: the folder and the service agree');
      const summary = JSON.parse(same.stdout) as { summary: Record<string, Record<string, number>> };
      expect(summary.summary['accounts']).toEqual({ identical: 3, missing: 0, extra: 0, different: 0 });
      expect(summary.summary['transactions']).toEqual({ identical: 5, missing: 0, extra: 0, different: 0 });
      expect(readFileSync(report, 'utf8')).toBe('kind,item,difference,field,source,service\r\n');

      const transactions = join(dir, 'records', 'LEG-0000001', 'transactions.json');
      writeFileSync(transactions, readFileSync(transactions, 'utf8').replace('"amount": 10.0,', '"amount": 12.5,'));
      const changed = await cli(['verify', dir, '--url', service.base, '--supplier', SUPPLIER, '--report', report], env);
      expect(changed.code, changed.stderr).toBe(1);
      expect(readFileSync(report, 'utf8').split('\r\n')).toEqual([
        'kind,item,difference,field,source,service',
        'transactions,LEG-0000001/TX-0002,different,amount_cents,1250,1000',
        'ledger_balance,LEG-0000001,different,balance_cents,-1062,-812',
        '',
      ]);

      const noKey = await cli(['verify', dir, '--url', service.base, '--supplier', SUPPLIER], { LEDGER_API_KEY: undefined });
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toContain('no API key');
      const badUrl = await cli(['verify', dir, '--url', 'ftp://x', '--supplier', SUPPLIER], env);
      expect(badUrl.code).toBe(2);
    },
    CLI_TEST_TIMEOUT_MS * 2,
  );
});
