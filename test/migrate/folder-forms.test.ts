import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPaymentVendors } from '../../src/adapters/payment-vendors.js';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor.js';
import { loadExample } from '../support/ledger.js';
import { countOf, differences, ext, recordsOf, reportLines, runMigration, runVerify, startService, SUPPLIER, writeFolder, type Folder, type RunningService } from './migrate-support.js';

/**
 * The folder's other forms, migrated and verified end to end over HTTP against the real service: the
 * per-kind NDJSON record files (lines in any order, a broken line, both forms at once, a re-run from the
 * journal), payment instructions per account and in NDJSON (checked with a fake vendor on 127.0.0.1), and
 * business payment instructions.
 */
/** A statement of account i (no document: the test service has none). */
const statementOf = (i: number) => ({ statement_id: `ST-${i}`, bill_period_from_date: '2025-04-01', bill_period_to_date: '2025-04-30', issued_date: '2025-05-03', number: `F-${i}`, gross_amount: 71.4 });

/** A deterministic shuffle: the lines of an NDJSON file in no particular order. */
const shuffled = <T>(items: T[]): T[] => items.map((item, i) => ({ item, key: (i * 7919) % 101 })).sort((a, b) => a.key - b.key).map((x) => x.item);

/** Writes records/<kind>.ndjson for accounts 1..n: one line an account per kind, shuffled; `supplierless` lines leave import_supplier out. */
function writeRecordLines(folder: Folder, n: number, supplierless: (i: number) => boolean = () => false): void {
  const lines = (kind: string, body: (i: number) => unknown) =>
    shuffled(Array.from({ length: n }, (_, k) => k + 1)).map((i) =>
      JSON.stringify({ ...(supplierless(i) ? {} : { import_supplier: SUPPLIER }), external_account_number: ext(i), [kind]: body(i) }),
    );
  mkdirSync(join(folder.dir, 'records'), { recursive: true });
  writeFileSync(join(folder.dir, 'records', 'notes.ndjson'), `${lines('notes', (i) => recordsOf(i).notes).join('\n')}\n`);
  writeFileSync(join(folder.dir, 'records', 'transactions.ndjson'), `${lines('transactions', (i) => recordsOf(i).transactions).join('\n')}\n`);
  writeFileSync(join(folder.dir, 'records', 'statements.ndjson'), `${lines('statements', (i) => [statementOf(i)]).join('\n')}\n`);
}

describe('import-ledger migrate and verify: per-kind NDJSON record files', () => {
  let service: RunningService;
  let folder: Folder;
  beforeEach(async () => {
    service = await startService();
  });
  afterEach(async () => {
    await service.stop();
    folder?.cleanup();
  });

  it('migrates the lines in any order (the supplier filled in where absent), and verify agrees; a changed line is reported', async () => {
    folder = writeFolder({ accounts: 12, ndjson: true });
    writeRecordLines(folder, 12, (i) => i % 4 === 0);
    const result = await runMigration(service, folder);
    expect(result.exitCode).toBe(0);
    expect(result.summary.byStep['notes']).toEqual({ imported: 12 });
    expect(result.summary.byStep['transactions']).toEqual({ imported: 12 });
    expect(result.summary.byStep['statements']).toEqual({ imported: 12 });
    expect(await countOf(service, 'AccountNoteCreated')).toBeGreaterThanOrEqual(24);
    expect(await countOf(service, 'LedgerTransactionAdded')).toBe(24);

    const same = await runVerify(service, folder);
    expect(differences(folder)).toEqual([]);
    expect(same.exitCode).toBe(0);
    expect(same.summary.transactions).toEqual({ identical: 24, missing: 0, extra: 0, different: 0 });
    expect(same.summary.ledger_balance).toEqual({ identical: 12, missing: 0, extra: 0, different: 0 });

    const file = join(folder.dir, 'records', 'transactions.ndjson');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"transaction_id":"TX-5-1","transaction_date":"2025-07-02","amount":35.2', '"transaction_id":"TX-5-1","transaction_date":"2025-07-02","amount":36.2'));
    const changed = await runVerify(service, folder);
    expect(changed.exitCode).toBe(1);
    expect(differences(folder)).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'transactions', item: `${ext(5)}/TX-5-1`, difference: 'different', field: 'amount_cents', source: '3620', service: '3520' })]),
    );
  });

  it("a broken line is that line's failure (with its line number), the others go on; a re-run skips the settled lines from the journal and sends nothing again", async () => {
    folder = writeFolder({ accounts: 6, ndjson: true });
    writeRecordLines(folder, 6);
    const notes = join(folder.dir, 'records', 'notes.ndjson');
    const lines = readFileSync(notes, 'utf8').trimEnd().split('\n');
    writeFileSync(notes, `${[...lines.slice(0, 2), '{"external_account_number": "LEG-00', ...lines.slice(2)].join('\n')}\n`);

    const first = await runMigration(service, folder);
    expect(first.exitCode).toBe(1);
    const broken = reportLines(folder).filter((l) => l.outcome === 'failed');
    expect(broken).toEqual([expect.objectContaining({ step: 'notes', id: 'line 3', error_code: 'unreadable_input' })]);
    expect(broken[0]!.detail).toContain('notes.ndjson:3');
    expect(first.summary.byStep['notes']).toEqual({ imported: 6, failed: 1 });

    const posted = service.posts.length;
    const again = await runMigration(service, folder);
    expect(again.summary.byStep['notes']).toEqual({ 'already imported': 6, failed: 1 });
    expect(again.summary.byStep['transactions']).toEqual({ 'already imported': 6 });
    expect(reportLines(folder).filter((l) => l.step === 'statements').every((l) => l.detail?.startsWith('settled by an earlier run'))).toBe(true);
    expect(service.posts.slice(posted).filter((p) => /notes|transactions|statements/.test(p.path))).toEqual([]);
  });

  it("both forms at once are both sent; an account that failed in the run has its lines skipped", async () => {
    folder = writeFolder({ accounts: 4, ndjson: true, invalid: (i) => i === 2, withRecords: (i) => i === 1 });
    writeRecordLines(folder, 4);
    // Account 1: notes in its records/<EXT>/notes.json and on its notes.ndjson line (other notes), its transactions on the line only.
    writeFileSync(join(folder.dir, 'records', ext(1), 'notes.json'), JSON.stringify([{ body: 'A note of the per-account file', created_at: '2025-06-01T10:00:00Z' }]));
    rmSync(join(folder.dir, 'records', ext(1), 'transactions.json'));
    const result = await runMigration(service, folder);
    expect(result.summary.byStep['accounts']).toEqual({ imported: 3, failed: 1 });
    const notes = reportLines(folder).filter((l) => l.step === 'notes');
    expect(notes.filter((l) => l.id === ext(1)).map((l) => l.outcome)).toEqual(['imported', 'imported']);
    expect(notes.filter((l) => l.id === ext(2))).toEqual([expect.objectContaining({ outcome: 'skipped' })]);
    expect(reportLines(folder).filter((l) => l.id === ext(2) && l.step !== 'accounts').map((l) => l.outcome)).toEqual(['skipped', 'skipped', 'skipped']);

    const verified = await runVerify(service, folder);
    // Account 2 was refused: only its absence is a difference; account 1's notes of both forms are there.
    expect(differences(folder).map((d) => `${d.kind} ${d.item} ${d.difference}`)).toEqual([`accounts ${ext(2)} missing`]);
    expect(verified.summary.notes.missing + verified.summary.notes.extra).toBe(0);
  });
});

describe('import-ledger migrate and verify: payment instructions', () => {
  let vendor: FakeVendor;
  let service: RunningService;
  let folder: Folder;
  beforeAll(async () => {
    vendor = await startFakeVendor();
  });
  afterAll(async () => {
    await vendor.close();
  });
  beforeEach(async () => {
    service = await startService({ paymentVendors: createPaymentVendors({ baseUrls: { STRIPE: vendor.url }, timeoutMs: 1_000 }) });
    vendor.hits.length = 0;
  });
  afterEach(async () => {
    await service.stop();
    folder?.cleanup();
  });

  const instruction = (i: number, n: number, type = 'CARD') => ({ vendor: 'STRIPE', reference: `pm_${i}_${n}`, type });

  it('per account and in NDJSON: sent one a request after the records, a vendor 500 retried as is, a 400 reported; verify agrees, then reports missing, extra and different', async () => {
    folder = writeFolder({ accounts: 4, ndjson: true, withRecords: (i) => i <= 2 });
    for (const i of [1, 2]) writeFileSync(join(folder.dir, 'records', ext(i), 'payment-instructions.json'), JSON.stringify([instruction(i, 1), instruction(i, 2, 'DIRECT_DEBIT')]));
    const lines = [3, 4].map((i) => JSON.stringify({ import_supplier: SUPPLIER, external_account_number: ext(i), ...instruction(i, 1) }));
    writeFileSync(join(folder.dir, 'records', 'payment-instructions.ndjson'), `${lines.join('\n')}\n`);
    for (const i of [1, 2, 3, 4]) vendor.script(`pm_${i}_1`, { kind: 'found' });
    vendor.script('pm_1_2', { kind: 'found' });
    // pm_2_2: the vendor fails once (500: retry as is), then finds it. pm_4_1 is not found: 400, not retried.
    vendor.script('pm_2_2', { kind: 'status', status: 500, body: { message: 'down' } });
    vendor.script('pm_4_1', { kind: 'not-found' });
    service.onRequest = () => {
      if (vendor.hits.some((h) => h.reference === 'pm_2_2')) vendor.script('pm_2_2', { kind: 'found' });
    };

    const result = await runMigration(service, folder);
    expect(result.exitCode).toBe(1);
    expect(result.summary.byStep['payment_instructions']).toEqual({ imported: 5, failed: 1 });
    const lines4 = reportLines(folder).filter((l) => l.step === 'payment_instructions');
    expect(lines4.find((l) => l.id === `${ext(4)}/pm_4_1`)).toMatchObject({ outcome: 'failed', http_status: 400, error_code: 'payment_instruction_rejected' });
    expect(vendor.hits.filter((h) => h.reference === 'pm_2_2')).toHaveLength(2);
    expect(vendor.hits.filter((h) => h.reference === 'pm_4_1')).toHaveLength(1);
    expect(await countOf(service, 'PaymentInstructionCreated')).toBe(5);
    // After the account's records: every instruction request follows every record request.
    const paths = service.posts.map((p) => p.path);
    expect(paths.lastIndexOf('/v1/data-import/notes/create/')).toBeLessThan(paths.indexOf('/v1/data-import/payment-instruction/create/'));

    // The rejected one is in the folder, not in the service: missing.
    const first = await runVerify(service, folder);
    expect(first.exitCode).toBe(1);
    expect(differences(folder)).toEqual([expect.objectContaining({ kind: 'payment_instructions', item: `${ext(4)}/pm_4_1`, difference: 'missing' })]);

    writeFileSync(join(folder.dir, 'records', 'payment-instructions.ndjson'), `${lines[0]}\n`);
    expect((await runVerify(service, folder)).exitCode).toBe(0);
    expect(differences(folder)).toEqual([]);

    // One taken out of the folder (extra), one of another type (different).
    writeFileSync(join(folder.dir, 'records', ext(1), 'payment-instructions.json'), JSON.stringify([instruction(1, 1)]));
    writeFileSync(join(folder.dir, 'records', ext(2), 'payment-instructions.json'), JSON.stringify([instruction(2, 1, 'BPAY'), instruction(2, 2, 'DIRECT_DEBIT')]));
    const changed = await runVerify(service, folder);
    expect(changed.exitCode).toBe(1);
    expect(differences(folder).map((d) => `${d.kind} ${d.item} ${d.difference} ${d.field}`).sort()).toEqual([
      `payment_instructions ${ext(1)}/pm_1_2 extra present`,
      `payment_instructions ${ext(2)}/pm_2_1 different type`,
    ]);
  });

  it('business payment instructions: sent after the businesses and the accounts they name', async () => {
    folder = writeFolder({ accounts: 2, ndjson: true });
    const example = loadExample('business-payment-instruction.json');
    const { import_supplier_code: _omitted, ...supplierless } = example;
    const lines = [JSON.stringify(example), JSON.stringify({ ...supplierless, reference: 'pm_biz_2', accounts: [{ external_account_number: ext(2) }] })];
    writeFileSync(join(folder.dir, 'businesses', 'payment-instructions.ndjson'), `${lines.join('\n')}\n`);
    vendor.script(example['reference'] as string, { kind: 'found' });
    vendor.script('pm_biz_2', { kind: 'found' });

    const result = await runMigration(service, folder);
    expect(result.exitCode).toBe(0);
    expect(result.summary.byStep['businesses']).toEqual({ imported: 1 });
    expect(result.summary.byStep['business_payment_instructions']).toEqual({ imported: 2 });
    expect(reportLines(folder).filter((l) => l.step === 'business_payment_instructions').map((l) => l.id).sort()).toEqual(['BIZ-000123/pm_biz_1QxYz2AbCdEf', 'BIZ-000123/pm_biz_2']);
    expect(await countOf(service, 'BusinessPaymentInstructionCreated')).toBe(2);

    const again = await runMigration(service, folder);
    expect(again.summary.byStep['business_payment_instructions']).toEqual({ 'already imported': 2 });
    expect((await runVerify(service, folder)).exitCode).toBe(0);
  });
});
