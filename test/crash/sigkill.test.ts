import { spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { inlineProjections } from '../../projections/index.js';
import { createApiKey, createImportSupplier, createOperationsTeam } from '../../src/application/operator.js';
import { obtainToken } from '../../src/application/tokens.js';
import { openLedger } from '../../src/ledger.js';
import { verifyProjections } from '../../src/store/projection-rebuild.js';
import { BIN, PROJECT_ROOT, cliEnv } from '../cli/run-cli.js';
import { loadExample, operator, tempDatabaseFile } from '../support/ledger.js';
import { createExampleProducts } from '../support/products.js';
import { freePort } from '../support/net.js';

/** Crash cycles: a few in the default run, more with LEDGER_CRASH_CYCLES=50. */
const CYCLES = Number(process.env['LEDGER_CRASH_CYCLES'] ?? 3);
const SUPPLIER = 'LEGACY_ENERGIE';
const SECRET = 'crash-test-secret-0123456789-0123456789';
const account = JSON.stringify(loadExample('account-domestic.json'));


async function startServer(file: string): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: PROJECT_ROOT,
    env: cliEnv({ LEDGER_DATABASE: file, PORT: String(port), NODE_ENV: 'production', LOG_LEVEL: 'error', LEDGER_TOKEN_SECRET: SECRET }),
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 500; i++) {
    if ((await fetch(`${base}/healthz`).catch(() => null))?.ok) return { child, base };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

describe('crash safety (SIGKILL under concurrent load)', () => {
  it(`after ${CYCLES} kills: every acknowledged write is stored once, the file is sound, projections equal a rebuild`, async () => {
    const { file, cleanup } = tempDatabaseFile();
    try {
      const setup = openLedger(file);
      await createImportSupplier(setup, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
      await createOperationsTeam(setup, 'Migrations', operator);
      await createExampleProducts(setup);
      const { key } = await createApiKey(setup, { suppliers: [SUPPLIER], label: null }, operator);
      const { token } = await obtainToken(setup, SECRET, { apiKey: key });
      setup.close();

      const staged = new Set<string>();
      const imported = new Map<string, string>();
      let next = 0;
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const { child, base } = await startServer(file);
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        const headers = { 'content-type': 'application/json', authorization: `Token ${token}` };
        let running = true;
        const worker = async () => {
          while (running) {
            const ext = `CRASH-${next++}`;
            const stage = await fetch(`${base}/v1/data-import/account-import-process/create-or-update/`, {
              method: 'POST',
              headers,
              body: account.replace('"LEG-0000001"', JSON.stringify(ext)),
            }).catch(() => null);
            if (!stage) return;
            if (stage.status === 201) staged.add(ext);
            else throw new Error(`stage answered ${stage.status}: ${await stage.text()}`);
            const processed = await fetch(`${base}/v1/data-import/account-import-process/process/`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ external_account_number: ext, import_supplier_code: SUPPLIER, operations_team_name: 'Migrations' }),
            }).catch(() => null);
            if (!processed) return;
            if (processed.status === 201) imported.set(ext, ((await processed.json()) as { platform_account_number: string }).platform_account_number);
            else throw new Error(`process answered ${processed.status}: ${await processed.text()}`);
          }
        };
        const load = Promise.all(Array.from({ length: 8 }, worker));
        await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 600));
        child.kill('SIGKILL');
        running = false;
        await exited;
        await load;

        const ledger = openLedger(file);
        try {
          const { sqlite } = ledger.database;
          expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
          for (const ext of staged) {
            const row = await ledger.read.findAccountImportProcess(SUPPLIER, ext);
            expect(row, `acknowledged staging of ${ext}`).not.toBeNull();
            const stream = await ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, ext));
            expect(stream.filter((e) => e.event.type === 'AccountStaged')).toHaveLength(1);
            expect(stream.filter((e) => e.event.type === 'AccountProcessed').length).toBeLessThanOrEqual(1);
            expect(stream.map((e) => e.streamPosition)).toEqual(stream.map((_, i) => i + 1));
          }
          for (const [ext, number] of imported) {
            expect(await ledger.read.findAccountImportProcess(SUPPLIER, ext)).toMatchObject({ state: 'IMPORTED', platformAccountNumber: number });
          }
          expect(verifyProjections(sqlite, inlineProjections).differences).toEqual([]);
        } finally {
          ledger.close();
        }
      }
      expect(staged.size).toBeGreaterThan(0);
    } finally {
      cleanup();
    }
  }, 120_000);
});
