import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { inlineProjections } from '../../projections/index.js';
import { changeTransferStatus, markAccountToSkip, processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import { createApiKey, createImportSupplier, createOperationsTeam, revokeApiKey, setImportSupplierStatus } from '../../src/application/operator.js';
import { validateAccountPayload, type AccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { DomainError } from '../../src/domain/errors.js';
import { emptyDocumentStore } from '../../src/adapters/document-store.js';
import { importNotes } from '../../src/application/account-notes.js';
import { importTransactions } from '../../src/application/account-transactions.js';
import { validateImportNotesRequest } from '../../src/domain/notes/note-payload.js';
import { validateImportTransactionsRequest } from '../../src/domain/ledger/transaction-payload.js';
import { openLedger } from '../../src/ledger.js';
import { rebuildStaleProjections } from '../../src/startup-rebuild.js';
import { rebuildProjections, verifyProjections } from '../../src/store/projection-rebuild.js';
import { BIN, PROJECT_ROOT, cliEnv, runCli } from '../cli/run-cli.js';
import { createTestLedger, loadExample, operator, type TestLedger } from '../support/ledger.js';
import { createExampleProducts as seedExampleProducts } from '../support/products.js';
import type Database from 'better-sqlite3';

const SUPPLIER = 'LEGACY_ENERGIE';
const base = validateAccountPayload(loadExample('account-domestic.json'));
if (!base.ok) throw new Error('example must validate');
const payloadFor = (ext: string, variant: number): AccountPayload => ({ ...base.data, external_account_number: ext, sales_channel: `c${variant}` });

/** Every projection table, dumped in a stable order: what "byte-identical" is checked on. */
function dump(sqlite: Database.Database): Record<string, unknown[]> {
  const tables = sqlite
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('events', '__drizzle_migrations', 'service_secrets', 'projection_versions', 'sqlite_sequence') AND name NOT LIKE '%__rebuild' ORDER BY name")
    .all()
    .map((r) => r.name);
  return Object.fromEntries(
    tables.map((t) => {
      const count = sqlite.prepare(`SELECT COUNT(*) FROM pragma_table_info('${t}')`).pluck().get() as number;
      const order = Array.from({ length: count }, (_, i) => i + 1).join(', ');
      return [t, sqlite.prepare(`SELECT * FROM "${t}" ORDER BY ${order}`).raw().all()];
    }),
  );
}

type Step =
  | { kind: 'stage'; account: number; variant: number }
  | { kind: 'process'; account: number; dryRun: boolean }
  | { kind: 'skip'; account: number }
  | { kind: 'transfer'; account: number; to: 'IN_PROGRESS' | 'REJECTED' | 'COMPLETED' }
  | { kind: 'supplier'; to: 'Ongoing' | 'Paused' }
  | { kind: 'key' }
  | { kind: 'note'; account: number; body: number }
  | { kind: 'tx'; account: number; id: number; cents: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('stage' as const), account: fc.nat(3), variant: fc.nat(3) }),
  fc.record({ kind: fc.constant('process' as const), account: fc.nat(3), dryRun: fc.boolean() }),
  fc.record({ kind: fc.constant('skip' as const), account: fc.nat(3) }),
  fc.record({ kind: fc.constant('transfer' as const), account: fc.nat(3), to: fc.constantFrom('IN_PROGRESS' as const, 'REJECTED' as const, 'COMPLETED' as const) }),
  fc.record({ kind: fc.constant('supplier' as const), to: fc.constantFrom('Ongoing' as const, 'Paused' as const) }),
  fc.record({ kind: fc.constant('key' as const) }),
  fc.record({ kind: fc.constant('note' as const), account: fc.nat(3), body: fc.nat(3) }),
  fc.record({ kind: fc.constant('tx' as const), account: fc.nat(3), id: fc.nat(5), cents: fc.integer({ min: 1, max: 100_000 }) }),
);

async function runStep(t: TestLedger, step: Step): Promise<void> {
  const ext = `ACC-${'account' in step ? step.account : 0}`;
  try {
    if (step.kind === 'stage') await stageAccount(t.ledger, payloadFor(ext, step.variant), operator);
    if (step.kind === 'process') {
      await processAccount(t.ledger, { importSupplier: SUPPLIER, externalAccountNumber: ext, operationsTeamName: 'Migrations', dryRun: step.dryRun }, operator);
    }
    if (step.kind === 'skip') await markAccountToSkip(t.ledger, SUPPLIER, ext, operator);
    if (step.kind === 'transfer') await changeTransferStatus(t.ledger, SUPPLIER, ext, step.to, operator);
    if (step.kind === 'supplier') await setImportSupplierStatus(t.ledger, SUPPLIER, step.to, operator);
    if (step.kind === 'note') {
      const request = validateImportNotesRequest({ import_supplier: SUPPLIER, external_account_number: ext, notes: [{ body: `note ${step.body}` }] });
      if (!request.ok) throw new Error('note request must validate');
      await importNotes(t.ledger, emptyDocumentStore, request.data, operator);
    }
    if (step.kind === 'tx') {
      const request = validateImportTransactionsRequest({
        import_supplier: SUPPLIER,
        external_account_number: ext,
        transactions: [{ transaction_id: `TX-${step.id}`, transaction_date: '2026-11-01', amount: step.cents / 100, type: 'CHARGE', reason: 'IMPORTED_CHARGE' }],
      });
      if (!request.ok) throw new Error('transaction request must validate');
      await importTransactions(t.ledger, request.data, { checkPreviouslyAdded: true, forceAddToCurrentStatement: true }, operator);
    }
    if (step.kind === 'key') {
      const { keyId } = await createApiKey(t.ledger, { suppliers: [SUPPLIER], label: null }, operator);
      await revokeApiKey(t.ledger, keyId, operator);
    }
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
  }
}

async function seeded(): Promise<TestLedger> {
  const t = createTestLedger();
  await createImportSupplier(t.ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  await createOperationsTeam(t.ledger, 'Migrations', operator);
  await seedExampleProducts(t.ledger);
  return t;
}

describe('projection rebuild and verify', () => {
  let open: TestLedger | undefined;
  afterEach(() => open?.close());

  it('for any command sequence, verify finds no difference and rebuild gives identical tables', async () => {
    await fc.assert(
      // The log is read inline or in a worker thread (the default for big logs): both must agree.
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 20 }), fc.boolean(), async (steps, readInWorker) => {
        const t = await seeded();
        open = t;
        try {
          for (const step of steps) await runStep(t, step);
          const { sqlite } = t.ledger.database;
          expect(verifyProjections(sqlite, inlineProjections, { readInWorker }).differences).toEqual([]);
          const before = dump(sqlite);
          rebuildProjections(sqlite, inlineProjections, { batchSize: 7, readInWorker });
          expect(dump(sqlite)).toEqual(before);
          // the rebuilt tables serve as before (indexes recreated, statements re-prepared)
          await runStep(t, { kind: 'supplier', to: 'Ongoing' });
          await runStep(t, { kind: 'stage', account: 9, variant: 1 });
          expect(await t.ledger.read.findAccountImportProcess(SUPPLIER, 'ACC-9')).not.toBeNull();
        } finally {
          t.close();
          open = undefined;
        }
      }),
      { numRuns: 25 },
    );
  });

  it('verify reports rows that differ from a rebuild, on both sides', async () => {
    const t = await seeded();
    open = t;
    await stageAccount(t.ledger, payloadFor('ACC-1', 0), operator);
    const { sqlite } = t.ledger.database;
    sqlite.prepare("UPDATE account_import_processes SET stage_count = 42 WHERE external_account_number = 'ACC-1'").run();
    const { differences } = verifyProjections(sqlite, inlineProjections);
    expect(differences.map((d) => [d.projection, d.side])).toEqual([
      ['account_import_processes', 'live'],
      ['account_import_processes', 'rebuilt'],
    ]);
    expect(differences[0]!.row).toMatchObject({ stage_count: 42 });
    rebuildProjections(sqlite, inlineProjections);
    expect(verifyProjections(sqlite, inlineProjections).differences).toEqual([]);
  });

  it('rebuilds a projection whose declared version changed before serving, and records the version', async () => {
    const t = await seeded();
    open = t;
    await stageAccount(t.ledger, payloadFor('ACC-1', 0), operator);
    const { sqlite } = t.ledger.database;
    rebuildStaleProjections(t.ledger, pino({ level: 'silent' })); // records every current version
    sqlite.prepare("UPDATE projection_versions SET version = 0 WHERE name = 'account_import_processes'").run();
    sqlite.prepare('DELETE FROM account_import_processes').run();
    rebuildStaleProjections(t.ledger, pino({ level: 'silent' }));
    expect(await t.ledger.read.findAccountImportProcess(SUPPLIER, 'ACC-1')).toMatchObject({ state: 'STAGED' });
    const version = sqlite.prepare("SELECT version FROM projection_versions WHERE name = 'account_import_processes'").pluck().get();
    expect(version).toBe(inlineProjections.find((p) => p.name === 'account_import_processes')!.version);
  });

  it('a rebuild killed midway leaves the live tables intact, and the next rebuild succeeds', async () => {
    const t = await seeded();
    open = t;
    for (let i = 0; i < 400; i++) await stageAccount(t.ledger, payloadFor(`ACC-${i}`, i % 3), operator);
    const { sqlite } = t.ledger.database;
    const before = dump(sqlite);
    // A child rebuild, killed with SIGKILL as soon as it has written its first batch into the scratch tables.
    const child = spawn(process.execPath, [BIN, 'projections', 'rebuild'], { cwd: PROJECT_ROOT, env: cliEnv({ LEDGER_DATABASE: t.file }) });
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        if (/rebuild:\s+\d+%/.test(chunk.toString())) child.kill('SIGKILL');
      });
      child.once('exit', () => resolve());
    });
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(dump(sqlite)).toEqual(before);
    const result = await runCli(t.file, ['projections', 'rebuild']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/events read, .* rows written .* events\/s/);
    expect(dump(sqlite)).toEqual(before);
    expect(sqlite.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE '%__rebuild'").pluck().get()).toBe(0);
    const verify = await runCli(t.file, ['projections', 'verify']);
    expect(verify.code).toBe(0);
    sqlite.prepare('UPDATE account_import_processes SET stage_count = 7').run();
    const failing = await runCli(t.file, ['projections', 'verify', '--name', 'account_import_processes']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('"stage_count":7');
  });
});

describe('events tail', () => {
  it('prints the log as JSON lines from a position, filtered by type', async () => {
    const t = createTestLedger();
    try {
      await createImportSupplier(t.ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
      await createOperationsTeam(t.ledger, 'Migrations', operator);
      await setImportSupplierStatus(t.ledger, SUPPLIER, 'Paused', operator);
      t.ledger.close();
      const all = await runCli(t.file, ['events', 'tail']);
      const lines = all.stdout.trim().split('\n').map((l) => JSON.parse(l) as { position: number; type: string });
      expect(lines.map((l) => l.type)).toEqual(['ImportSupplierCreated', 'OperationsTeamCreated', 'ImportSupplierStatusChanged']);
      const from = await runCli(t.file, ['events', 'tail', '--from', String(lines[0]!.position), '--type', 'ImportSupplierStatusChanged']);
      expect(from.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['ImportSupplierStatusChanged']);
    } finally {
      t.close();
    }
  });
});
