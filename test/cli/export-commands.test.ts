import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageAccountsInBulk } from '../support/bulk-accounts.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, createTestApi, type TestApi } from '../support/ledger.js';
import { CLI_TEST_TIMEOUT_MS, runCli } from './run-cli.js';

/** `import-ledger export reconciliation`: the endpoint's export, from the command line. */

const ACCOUNTS = 1_050;
let api: TestApi;
let token: string;
let dir: string;

beforeAll(async () => {
  api = await createTestApi({ store: 'sqlite' });
  token = await accessToken(api);
  dir = mkdtempSync(join(tmpdir(), 'import-ledger-export-'));
  // More than one chunk, one number that CSV must quote.
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({ ext: i === 7 ? 'ODD,"ONE"' : `CLI-${String(i).padStart(5, '0')}`, stagedAt: api.clock.now.toISOString(), imported: i % 10 === 0 }));
  await stageAccountsInBulk(api.ledger, SUPPLIER, accounts);
}, CLI_TEST_TIMEOUT_MS);

afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const viaHttp = async (format: 'csv' | 'ndjson') =>
  (await api.app.request(`/v1/data-import/reconciliation/${SUPPLIER}/?format=${format}`, { headers: { authorization: `Token ${token}` } })).text();

describe('import-ledger export reconciliation', () => {
  it(
    'writes the same CSV as the endpoint to --output (CSV by default), with progress and a summary on stderr; NDJSON on stdout with --format ndjson',
    async () => {
      const file = join(dir, 'reconciliation.csv');
      const [toFile, toStdout] = await Promise.all([
        runCli(api.location, ['export', 'reconciliation', SUPPLIER, '--output', file]),
        runCli(api.location, ['export', 'reconciliation', SUPPLIER, '--format', 'ndjson']),
      ]);
      expect(toFile).toMatchObject({ code: 0, stdout: '' });
      expect(readFileSync(file, 'utf8')).toBe(await viaHttp('csv'));
      expect(existsSync(`${file}.partial`)).toBe(false);
      expect(toFile.stderr).toContain(`export ${SUPPLIER}: 100% (1,050/1,050)`);
      expect(toFile.stderr).toMatch(new RegExp(`exported 1,050 accounts of ${SUPPLIER} as csv to ${file.replaceAll('/', '\\/')} in [\\d.]+ s`));
      expect(toStdout.code).toBe(0);
      expect(toStdout.stdout).toBe(await viaHttp('ndjson'));
      expect(toStdout.stdout.trimEnd().split('\n')).toHaveLength(ACCOUNTS);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'an unknown supplier exits 1 with import_supplier_not_found and writes no file; a bad format exits 2; an unwritable --output exits 1',
    async () => {
      const file = join(dir, 'none.csv');
      const [unknown, badFormat, badPath] = await Promise.all([
        runCli(api.location, ['export', 'reconciliation', 'NO_SUCH_SUPPLIER', '--output', file]),
        runCli(api.location, ['export', 'reconciliation', SUPPLIER, '--format', 'xlsx']),
        runCli(api.location, ['export', 'reconciliation', SUPPLIER, '--output', join(dir, 'no-such-directory', 'r.csv')]),
      ]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('(import_supplier_not_found)');
      expect(existsSync(file) || existsSync(`${file}.partial`)).toBe(false);
      expect(badFormat.code).toBe(2);
      expect(badFormat.stderr).toContain('expected one of csv, ndjson');
      expect(badPath.code).toBe(1);
      expect(badPath.stderr).toContain('ENOENT');
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
