import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import { examplePayload } from '../support/account-records.js';
import { createExampleProducts } from '../support/products.js';
import { operator } from '../support/ledger.js';
import { SUPPLIER, TEAM, countOf, duplicates, ext, reportLines, runMigration, startFaultProxy, startService, writeFolder, type Folder, type RunningService } from './migrate-support.js';

const invalid = (i: number) => i % 25 === 0; // 8 of 200
const preImported = [3, 4, 5];
const withRecords = (i: number) => i % 10 === 1; // 20 of 200

describe('import-ledger migrate against the real service', () => {
  let service: RunningService;
  let folder: Folder;
  beforeEach(async () => {
    service = await startService();
  });
  afterEach(async () => {
    await service.stop();
    folder?.cleanup();
  });

  it('migrates products, a business, 200 accounts (some invalid, some already imported) and their records, with the right report; a re-run changes nothing', async () => {
    folder = writeFolder({ accounts: 200, invalid, withRecords });
    // Imported before the migration (by another client): the imported list tells the command.
    await createExampleProducts(service.ledger);
    const numbers = new Map<string, string>();
    for (const i of preImported) {
      await stageAccount(service.ledger, examplePayload({ external_account_number: ext(i) }), operator);
      const { platformAccountNumber } = await processAccount(
        service.ledger,
        { importSupplier: SUPPLIER, externalAccountNumber: ext(i), operationsTeamName: TEAM, dryRun: false },
        operator,
      );
      numbers.set(ext(i), platformAccountNumber);
    }

    const result = await runMigration(service, folder);
    expect(result.exitCode).toBe(1);
    const lines = reportLines(folder);
    const of = (step: string) => lines.filter((l) => l.step === step);
    expect(of('products').map((l) => [l.id, l.outcome])).toEqual([
      // Created with the accounts above: the catalogue already holds them (201, nothing created).
      ['ELEC-FIXE-2025', 'already imported'],
      ['GAZ-FIXE-2025', 'already imported'],
    ]);
    expect(of('businesses').map((l) => [l.id, l.outcome])).toEqual([['BIZ-000123', 'imported']]);

    const accounts = of('accounts');
    expect(accounts).toHaveLength(200);
    const failed = accounts.filter((l) => l.outcome === 'failed');
    expect(failed.map((l) => l.id).sort()).toEqual([25, 50, 75, 100, 125, 150, 175, 200].map(ext));
    for (const line of failed) {
      expect(line).toMatchObject({ http_status: 400, error_code: 'account_failed_validation', error_items: 'customers.0.mobile:invalid_phone_number' });
    }
    const already = accounts.filter((l) => l.outcome === 'already imported');
    expect(already.map((l) => [l.id, l.platform_account_number]).sort()).toEqual([...numbers].sort());
    const imported = accounts.filter((l) => l.outcome === 'imported');
    expect(imported).toHaveLength(200 - 8 - 3);
    for (const line of imported) expect(line).toMatchObject({ http_status: 201, platform_account_number: expect.stringMatching(/^A-[0-9A-F]{8}$/) });

    // Records of every account with a records folder (none of the invalid ones: i % 10 === 1).
    expect(of('notes')).toHaveLength(20);
    expect(of('transactions')).toHaveLength(20);
    expect([...of('notes'), ...of('transactions')].every((l) => l.outcome === 'imported' && l.http_status === 201)).toBe(true);
    expect(result.summary.byOutcome).toMatchObject({ imported: 1 + 189 + 40, 'already imported': 2 + 3, failed: 8 });
    expect(result.summary.byErrorCode).toEqual({ account_failed_validation: 8 });

    // What the service holds: every valid account imported once, every record once.
    expect(await countOf(service, 'AccountProcessed')).toBe(192);
    expect(await countOf(service, 'LedgerTransactionAdded')).toBe(40);
    expect(await duplicates(service)).toEqual({ processed: 0, notes: 0, transactions: 0 });

    // A re-run: the journal settles everything that was done, and only the failures are tried again.
    const requestsBefore = service.requests;
    const eventsBefore = await service.execute('SELECT COUNT(*) AS n FROM events');
    const again = await runMigration(service, folder, { reportFile: join(folder.work, 'again.ndjson') });
    expect(again.exitCode).toBe(1);
    expect(again.summary.byOutcome).toMatchObject({ imported: 0, 'already imported': 2 + 1 + 192 + 40, failed: 8 });
    expect(await service.execute('SELECT COUNT(*) AS n FROM events')).toEqual(eventsBefore);
    // The token, the service's identity, the team check, the accounts list, and the 8 failed accounts' stagings: nothing else was sent.
    expect(service.requests - requestsBefore).toBeLessThanOrEqual(4 + 8);
  });

  it('retries the 429s and 503s a fake front injects, and a write whose answer was lost is not applied twice', async () => {
    folder = writeFolder({ accounts: 40, withRecords: (i) => i % 4 === 0 });
    const proxy = await startFaultProxy(service.base, (n) => (n % 5 === 1 ? 'throttle' : n % 7 === 2 ? 'unavailable' : n % 11 === 3 ? 'lose' : 'pass'));
    try {
      const result = await runMigration({ base: proxy.base, apiKey: service.apiKey }, folder);
      expect(proxy.injected.throttled).toBeGreaterThan(5);
      expect(proxy.injected.unavailable).toBeGreaterThan(3);
      expect(proxy.injected.lost).toBeGreaterThan(3);
      expect(result.summary.byOutcome.failed).toBe(0);
      // A write whose answer was lost was applied by this run: its replayed answer is reported imported.
      expect(result.summary.byOutcome).toMatchObject({ imported: 2 + 1 + 40 + 20, 'already imported': 0 });
      expect(result.exitCode).toBe(0);
      expect(await countOf(service, 'AccountProcessed')).toBe(40);
      expect(await countOf(service, 'LedgerTransactionAdded')).toBe(20);
      expect(await duplicates(service)).toEqual({ processed: 0, notes: 0, transactions: 0 });
    } finally {
      await proxy.stop();
    }
  });

  it('a token that expires mid-run is renewed with the refresh token, and nothing fails', async () => {
    folder = writeFolder({ accounts: 30 });
    let moved = false;
    service.onRequest = (n) => {
      // After some accounts, the service's clock jumps past the token's 60 minutes.
      if (n === 25 && !moved) {
        moved = true;
        service.clock.advanceSeconds(61 * 60);
      }
    };
    try {
      const result = await runMigration(service, folder);
      expect(moved).toBe(true);
      expect(result.summary.byOutcome).toMatchObject({ failed: 0, imported: 2 + 1 + 30 });
      expect(service.tokenRequests).toHaveLength(2);
      expect(service.tokenRequests[0]).toContain('APIKey');
      expect(service.tokenRequests[1]).toContain('refreshToken');
    } finally {
      service.onRequest = null;
    }
  });

  it('--dry-run validates everything and creates nothing (no event, no journal)', async () => {
    folder = writeFolder({ accounts: 12, invalid: (i) => i === 4, withRecords: (i) => i === 1 });
    // The catalogue already holds the products (a dry run creates none, and accounts must name existing
    // ones), and one account is already staged: its process step is dry-run.
    await createExampleProducts(service.ledger);
    await stageAccount(service.ledger, examplePayload({ external_account_number: ext(2) }), operator);
    // Only the audit record of the successful process dry run is written (docs/migrate.md: dry runs are audited).
    const changes = "SELECT COUNT(*) AS n FROM events WHERE type <> 'AccountProcessDryRunSucceeded'";
    const before = await service.execute(changes);
    const result = await runMigration(service, folder, { dryRun: true });
    expect(await service.execute(changes)).toEqual(before);
    expect(await countOf(service, 'AccountProcessDryRunSucceeded')).toBe(1);
    expect(existsSync(join(folder.work, 'report.ndjson.journal.ndjson'))).toBe(false);
    const lines = reportLines(folder);
    expect(lines.filter((l) => l.step === 'products').map((l) => [l.outcome, l.http_status])).toEqual([['validated', 200], ['validated', 200]]);
    expect(lines.filter((l) => l.step === 'businesses').map((l) => l.outcome)).toEqual(['skipped']);
    const accounts = new Map(lines.filter((l) => l.step === 'accounts').map((l) => [l.id, l]));
    expect(accounts.get(ext(4))).toMatchObject({ outcome: 'failed', error_code: 'account_failed_validation' });
    expect(accounts.get(ext(2))).toMatchObject({ outcome: 'validated', http_status: 400, detail: expect.stringContaining('dry run would import') });
    expect([...accounts.values()].filter((l) => l.outcome === 'validated')).toHaveLength(11);
    expect(lines.some((l) => l.step === 'notes')).toBe(false);
    expect(result.exitCode).toBe(1);
  });

  it('--stage-only stages and stops; a later full run processes the staged accounts (NDJSON input)', async () => {
    folder = writeFolder({ accounts: 10, ndjson: true, withRecords: (i) => i === 3 });
    const staged = await runMigration(service, folder, { stageOnly: true });
    expect(staged.summary.byOutcome).toMatchObject({ staged: 10, failed: 0 });
    expect(await countOf(service, 'AccountProcessed')).toBe(0);
    const full = await runMigration(service, folder, { reportFile: join(folder.work, 'full.ndjson') });
    expect(full.exitCode).toBe(0);
    expect(full.summary.byStep['accounts']).toEqual({ imported: 10 });
    expect(full.summary.byStep['notes']).toEqual({ imported: 1 });
    expect(await countOf(service, 'AccountProcessed')).toBe(10);
  });

  it('--fresh ignores the journal: everything is sent again, and the Idempotency-Keys make it change nothing', async () => {
    folder = writeFolder({ accounts: 5, withRecords: (i) => i === 2 });
    await runMigration(service, folder);
    const before = await service.execute('SELECT COUNT(*) AS n FROM events');
    const again = await runMigration(service, folder, { fresh: true, reportFile: join(folder.work, 'fresh.ndjson') });
    expect(again.summary.byOutcome).toMatchObject({ imported: 0, failed: 0 });
    expect(await service.execute('SELECT COUNT(*) AS n FROM events')).toEqual(before);
    const lines = reportLines(folder, 'fresh.ndjson');
    expect(lines.find((l) => l.step === 'products')).toMatchObject({ outcome: 'already imported', http_status: 201 });
    expect(lines.find((l) => l.step === 'notes')).toMatchObject({ outcome: 'already imported', http_status: 201 });
  });

  it('every write carries an Idempotency-Key; a real run sends an account as stage then process (no validate), and the validations of a dry run carry no key', async () => {
    folder = writeFolder({ accounts: 4 });
    // A dry run writes nothing (validate-products/, validate-account/): no key, nothing for the service to store.
    await runMigration(service, folder, { dryRun: true });
    expect(new Set(service.posts.map((p) => p.path))).toEqual(new Set(['/v1/data-import/validate-products/', '/v1/data-import/validate-account/']));
    expect(service.posts.filter((p) => p.idempotencyKey !== null)).toEqual([]);

    service.posts.length = 0;
    await runMigration(service, folder);
    const accountPosts = service.posts.filter((p) => p.path.includes('account'));
    expect(accountPosts.map((p) => p.path).sort()).toEqual([
      ...Array<string>(4).fill('/v1/data-import/account-import-process/create-or-update/'),
      ...Array<string>(4).fill('/v1/data-import/account-import-process/process/'),
    ]);
    expect(service.posts.every((p) => p.idempotencyKey !== null)).toBe(true);
  });
});
