import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../support/postgres.js';
import { countOf, differences, ext, recordsOf, runMigration, runVerify, startService, SUPPLIER, writeFolder, type Folder, type RunningService } from './migrate-support.js';

const withRecords = (i: number) => i % 3 === 0;

for (const store of ['sqlite', 'postgres'] as const) {
  describe.skipIf(store === 'postgres' && !postgresAvailable())(`import-ledger verify against the real service (${store})`, () => {
    let service: RunningService;
    let folder: Folder;
    beforeEach(async () => {
      service = await startService({ store });
    });
    afterEach(async () => {
      await service.stop();
      folder?.cleanup();
    });

    it('a migrated folder verifies identical; each difference seeded afterwards is reported with its item and values', async () => {
      folder = writeFolder({ accounts: 30, withRecords });
      expect((await runMigration(service, folder)).exitCode).toBe(0);

      const same = await runVerify(service, folder);
      expect(differences(folder)).toEqual([]);
      expect(same.exitCode).toBe(0);
      expect(same.summary.accounts).toEqual({ identical: 30, missing: 0, extra: 0, different: 0 });
      expect(same.summary.transactions).toEqual({ identical: 20, missing: 0, extra: 0, different: 0 });
      expect(same.summary.ledger_balance).toEqual({ identical: 30, missing: 0, extra: 0, different: 0 });
      expect(same.summary.notes.identical).toBeGreaterThanOrEqual(20);
      expect(same.summary.products).toEqual({ identical: 2, missing: 0, extra: 0, different: 0 });
      expect(same.summary.rates).toEqual({ identical: 7, missing: 0, extra: 0, different: 0 });
      expect(same.summary.businesses).toEqual({ identical: 1, missing: 0, extra: 0, different: 0 });
      expect(same.summary.contracts).toEqual({ identical: 1, missing: 0, extra: 0, different: 0 });
      // Recorded on the supplier's stream: the dashboard's last verification.
      // Both name the service compared: the one GET service/ answers.
      const serviceId = await service.ledger.serviceId();
      expect(same.serviceId).toBe(serviceId);
      const recorded = await service.ledger.read.findImportSupplier(SUPPLIER);
      expect(recorded?.lastVerification).toEqual({ agree: true, summary: same.summary, serviceId });
      expect(recorded?.lastVerifiedBy).toMatch(/\S/);

      // The source changes after the migration.
      const records = (i: number) => join(folder.dir, 'records', ext(i));
      const three = recordsOf(3);
      // A transaction the service never got.
      writeFileSync(
        join(records(3), 'transactions.json'),
        JSON.stringify({ import_supplier: SUPPLIER, external_account_number: ext(3), transactions: [...three.transactions, { ...three.transactions[0], transaction_id: 'TX-NEW' }] }),
      );
      // An amount changed.
      const six = recordsOf(6);
      writeFileSync(join(records(6), 'transactions.json'), JSON.stringify([{ ...six.transactions[0], amount: 99.99 }, six.transactions[1]]));
      // A note's body changed.
      const nine = recordsOf(9);
      writeFileSync(join(records(9), 'notes.json'), JSON.stringify([{ ...nine.notes[0], body: 'Edited after the migration' }, nine.notes[1]]));
      // An account the source no longer has.
      rmSync(join(folder.dir, 'accounts', `${ext(30)}.json`));
      rmSync(records(30), { recursive: true });

      // A rate the service never got: the gas product's consumption rate from August, which also closes the July one.
      const products = JSON.parse(readFileSync(join(folder.dir, 'products.json'), 'utf8')) as { code: string; rates: Record<string, unknown>[] }[];
      const gas = products.find((p) => p.code === 'GAZ-FIXE-2025')!;
      gas.rates.push({ ...gas.rates[1], valid_from_date: '2025-08-01', price_per_unit: 0.1234 });
      writeFileSync(join(folder.dir, 'products.json'), JSON.stringify(products));

      const changed = await runVerify(service, folder, 'changed.ndjson');
      expect(changed.exitCode).toBe(1);
      const lines = differences(folder, 'changed.ndjson');
      expect(lines).toContainEqual({ kind: 'transactions', item: `${ext(3)}/TX-NEW`, difference: 'missing', field: 'present', source: '["TX-NEW",3520,"CHARGE"]', service: null });
      expect(lines).toContainEqual({ kind: 'ledger_balance', item: ext(3), difference: 'different', field: 'balance_cents', source: String(3520 - 2000 + 3520), service: String(3520 - 2000) });
      expect(lines).toContainEqual({ kind: 'transactions', item: `${ext(6)}/TX-6-1`, difference: 'different', field: 'amount_cents', source: '9999', service: '3520' });
      expect(lines).toContainEqual({ kind: 'notes', item: `${ext(9)}/note`, difference: 'different', field: 'body', source: 'Edited after the migration', service: `Migrated note A of ${ext(9)}` });
      expect(lines).toContainEqual({ kind: 'accounts', item: ext(30), difference: 'extra', field: 'present', source: null, service: 'imported' });
      const band = 'CONSUMPTION_CHARGE|consumption_class_id=B1|min_annual_consumption=0|max_annual_consumption=6000|price_level=1';
      expect(lines).toContainEqual({ kind: 'rates', item: `GAZ-FIXE-2025/${band}@2025-08-01T00:00:00Z`, difference: 'missing', field: 'present', source: '0.1234 to open', service: null });
      expect(lines).toContainEqual({ kind: 'rates', item: `GAZ-FIXE-2025/${band}@2025-01-01T00:00:00Z`, difference: 'different', field: 'valid_to', source: '2025-08-01T00:00:00Z', service: null });
      expect(lines).toHaveLength(8);
      expect(changed.summary.accounts).toEqual({ identical: 29, missing: 0, extra: 1, different: 0 });
      expect(changed.summary.transactions).toMatchObject({ missing: 1, different: 1 });
      expect(changed.summary.notes).toMatchObject({ different: 1 });
      expect((await service.ledger.read.findImportSupplier(SUPPLIER))?.lastVerification).toEqual({ agree: false, summary: changed.summary, serviceId });
      // Every verification is in the supplier's history.
      expect(await countOf(service, 'ImportSupplierVerified')).toBe(2);
    });

    it('an account twice in the folder is reported at each file after the first, the files taken in name order', async () => {
      folder = writeFolder({ accounts: 3 });
      expect((await runMigration(service, folder)).exitCode).toBe(0);
      const accounts = join(folder.dir, 'accounts');
      const two = readFileSync(join(accounts, `${ext(2)}.json`), 'utf8');
      // Made after the others: a listing in the folder's own order would take them last.
      writeFileSync(join(accounts, 'ZZZ-copy.json'), two);
      writeFileSync(join(accounts, 'AAA-copy.json'), two);

      const result = await runVerify(service, folder);
      expect(result.exitCode).toBe(1);
      expect(differences(folder)).toEqual([
        { kind: 'accounts', item: ext(2), difference: 'different', field: 'source', source: `twice in the folder (again at ${join(accounts, `${ext(2)}.json`)})`, service: null },
        { kind: 'accounts', item: ext(2), difference: 'different', field: 'source', source: `twice in the folder (again at ${join(accounts, 'ZZZ-copy.json')})`, service: null },
      ]);
      expect(result.summary.accounts).toEqual({ identical: 3, missing: 0, extra: 0, different: 2 });
    });

    it('an account the service refused is reported missing with its latest refusal code; one staged but never processed with its state', async () => {
      folder = writeFolder({ accounts: 4, invalid: (i) => i === 2 });
      expect((await runMigration(service, folder, { stageOnly: true })).exitCode).toBe(1);
      // Accounts 1, 3 and 4 staged (2 refused); a full run without account 1 processes 3 and 4: 1 stays pending.
      const first = join(folder.dir, 'accounts', `${ext(1)}.json`);
      const kept = readFileSync(first, 'utf8');
      rmSync(first);
      expect((await runMigration(service, folder, { reportFile: join(folder.work, 'full.ndjson'), journalFile: join(folder.work, 'full.journal') })).exitCode).toBe(1);
      writeFileSync(first, kept);

      const result = await runVerify(service, folder);
      expect(result.exitCode).toBe(1);
      expect(differences(folder)).toEqual([
        { kind: 'accounts', item: ext(2), difference: 'missing', field: 'present', source: 'imported', service: 'refused: account_failed_validation' },
        { kind: 'accounts', item: ext(1), difference: 'different', field: 'state', source: 'imported', service: 'pending' },
      ]);
      expect(result.summary.accounts).toEqual({ identical: 2, missing: 1, extra: 0, different: 1 });
    });
  });
}
