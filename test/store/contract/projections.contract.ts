import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { getTableName } from 'drizzle-orm';
import { inlineProjections } from '../../../projections/index.js';
import { emptyDocumentStore } from '../../../src/adapters/document-store.js';
import { changeTransferStatus, markAccountToSkip, processAccount, stageAccount } from '../../../src/application/account-import-processes.js';
import { importNotes } from '../../../src/application/account-notes.js';
import { importTransactions } from '../../../src/application/account-transactions.js';
import { createApiKey, createImportSupplier, createOperationsTeam, revokeApiKey, setImportSupplierStatus } from '../../../src/application/operator.js';
import type { AccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import { DomainError } from '../../../src/domain/errors.js';
import { validateImportTransactionsRequest } from '../../../src/domain/ledger/transaction-payload.js';
import { validateImportNotesRequest } from '../../../src/domain/notes/note-payload.js';
import { rebuildStaleProjections } from '../../../src/startup-rebuild.js';
import { ProjectionVersionAheadError } from '../../../src/store/projection-maintenance.js';
import { operator, SUPPLIER, TEAM } from '../../support/ledger.js';
import { createExampleProducts } from '../../support/products.js';
import { dumpTables, type ContractLedger, type LedgerFactory } from './harness.js';
import { payloadFor } from './seed.js';

const tables = inlineProjections.map((p) => getTableName(p.table));
const variantOf = (ext: string, variant: number): AccountPayload => payloadFor(ext, `c${variant}`);

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

async function runStep(t: ContractLedger, step: Step): Promise<void> {
  const ext = `ACC-${'account' in step ? step.account : 0}`;
  try {
    if (step.kind === 'stage') await stageAccount(t.ledger, variantOf(ext, step.variant), operator);
    if (step.kind === 'process') {
      await processAccount(t.ledger, { importSupplier: SUPPLIER, externalAccountNumber: ext, operationsTeamName: TEAM, dryRun: step.dryRun }, operator);
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

async function seeded(open: LedgerFactory): Promise<ContractLedger> {
  const t = await open();
  await createImportSupplier(t.ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  await createOperationsTeam(t.ledger, TEAM, operator);
  await createExampleProducts(t.ledger);
  return t;
}

/** Rebuild and verify: the projections are a function of the log. */
export function projectionsContract(open: LedgerFactory): void {
  describe('projection rebuild and verify', () => {
    it('for any command sequence, verify finds no difference and rebuild gives identical tables that serve as before', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 20 }), async (steps) => {
          const t = await seeded(open);
          try {
            for (const step of steps) await runStep(t, step);
            expect((await t.ledger.projections.verify(inlineProjections)).differences).toEqual([]);
            const before = await dumpTables(t, tables);
            const summary = await t.ledger.projections.rebuild(inlineProjections);
            expect(summary.projections).toEqual(inlineProjections.map((p) => p.name));
            expect(summary.eventsRead).toBeGreaterThan(0);
            expect(await dumpTables(t, tables)).toEqual(before);
            // the rebuilt tables serve as before (indexes recreated, statements re-prepared)
            await runStep(t, { kind: 'supplier', to: 'Ongoing' });
            await runStep(t, { kind: 'stage', account: 9, variant: 1 });
            expect(await t.ledger.read.findAccountImportProcess(SUPPLIER, 'ACC-9')).not.toBeNull();
            expect((await t.ledger.projections.verify(inlineProjections)).differences).toEqual([]);
          } finally {
            await t.close();
          }
        }),
        { numRuns: 25 },
      );
      // 25 fresh ledgers, each seeded, driven, verified, rebuilt and verified again: about 30 s on PostgreSQL on a
      // quiet 2-core machine, 70-85 s alone on a slow one and up to 120 s there once the test files run two at
      // a time (maxWorkers: 2).
    }, 300_000);

    it('verify reports rows that differ from a rebuild, on both sides; a rebuild repairs them', async () => {
      const t = await seeded(open);
      try {
        await stageAccount(t.ledger, variantOf('ACC-1', 0), operator);
        await t.execute("UPDATE account_import_processes SET stage_count = 42 WHERE external_account_number = 'ACC-1'");
        const { differences } = await t.ledger.projections.verify(inlineProjections);
        expect(differences.map((d) => [d.projection, d.side])).toEqual([
          ['account_import_processes', 'live'],
          ['account_import_processes', 'rebuilt'],
        ]);
        expect(differences[0]!.row).toMatchObject({ stage_count: 42 });
        const progress: number[] = [];
        await t.ledger.projections.rebuild(inlineProjections, { onProgress: (p) => progress.push(p.eventsRead) });
        expect(progress.length).toBeGreaterThan(0);
        expect((await t.ledger.projections.verify(inlineProjections)).differences).toEqual([]);
      } finally {
        await t.close();
      }
    });

    it('rebuilds a projection whose declared version changed before serving, and records the version', async () => {
      const t = await seeded(open);
      try {
        await stageAccount(t.ledger, variantOf('ACC-1', 0), operator);
        await rebuildStaleProjections(t.ledger, pino({ level: 'silent' })); // records every current version
        expect(await t.ledger.projections.stale(inlineProjections)).toEqual([]);
        await t.execute("UPDATE projection_versions SET version = 0 WHERE name = 'account_import_processes'");
        await t.execute('DELETE FROM account_import_processes');
        expect((await t.ledger.projections.stale(inlineProjections)).map((p) => p.name)).toEqual(['account_import_processes']);
        await rebuildStaleProjections(t.ledger, pino({ level: 'silent' }));
        expect(await t.ledger.read.findAccountImportProcess(SUPPLIER, 'ACC-1')).toMatchObject({ state: 'STAGED' });
        const [row] = await t.execute("SELECT version FROM projection_versions WHERE name = 'account_import_processes'");
        expect(Number(row!.version)).toBe(inlineProjections.find((p) => p.name === 'account_import_processes')!.version);
        expect(await t.ledger.projections.stale(inlineProjections)).toEqual([]);
      } finally {
        await t.close();
      }
    });

    it('refuses to start on a database a newer build rebuilt (a projection at a higher version); a deliberate rebuild downgrades it', async () => {
      const t = await seeded(open);
      try {
        await stageAccount(t.ledger, variantOf('ACC-1', 0), operator);
        await rebuildStaleProjections(t.ledger, pino({ level: 'silent' }));
        const declared = inlineProjections.find((p) => p.name === 'account_import_processes')!;
        await t.execute(`UPDATE projection_versions SET version = ${declared.version + 1} WHERE name = 'account_import_processes'`);
        const refused = await rebuildStaleProjections(t.ledger, pino({ level: 'silent' })).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(ProjectionVersionAheadError);
        expect((refused as ProjectionVersionAheadError).ahead).toEqual([{ name: 'account_import_processes', stored: declared.version + 1, declared: declared.version }]);
        expect(String(refused)).toMatch(/older than the database.*account_import_processes is at version/);
        // Nothing was rebuilt: the newer build's table is left as it was.
        expect(await t.ledger.read.findAccountImportProcess(SUPPLIER, 'ACC-1')).toMatchObject({ state: 'STAGED' });
        await t.ledger.projections.rebuild([declared]);
        expect(await t.ledger.projections.stale(inlineProjections)).toEqual([]);
      } finally {
        await t.close();
      }
    });

    it('a rebuild catches up with events appended while it replayed', async () => {
      const t = await seeded(open);
      try {
        for (let i = 0; i < 20; i++) await stageAccount(t.ledger, variantOf(`ACC-${i}`, i), operator);
        const late = (async () => {
          for (let i = 20; i < 30; i++) await stageAccount(t.ledger, variantOf(`ACC-${i}`, i), operator);
        })();
        await t.ledger.projections.rebuild(inlineProjections);
        await late;
        expect((await t.ledger.read.accountListChunk(SUPPLIER, 'STAGED', { after: null, through: null }, 10_000)).length).toBe(30);
        expect((await t.ledger.projections.verify(inlineProjections)).differences).toEqual([]);
      } finally {
        await t.close();
      }
    });
  });
}
