import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPaymentVendors } from '../../src/adapters/payment-vendors.js';
import { BUSINESS_PAYMENT_INSTRUCTIONS_PAGE } from '../../src/http/routes/catalogue-reads.js';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor.js';
import { loadExample } from '../support/ledger.js';
import { postgresAvailable } from '../support/postgres.js';
import { differences, ext, runMigration, runVerify, startService, SUPPLIER, writeFolder, type Folder, type RunningService } from './migrate-support.js';

/**
 * verify compares businesses/payment-instructions.ndjson with the business payment instructions the service
 * holds (the business read's pages), as it compares an account's: missing, extra, different by reference.
 */
const BIZ = 'BIZ-000123';
const example = loadExample('business-payment-instruction.json');
const FIRST = example['reference'] as string;
const instructionsFile = (folder: Folder) => join(folder.dir, 'businesses', 'payment-instructions.ndjson');
const writeInstructions = (folder: Folder, lines: readonly unknown[]) => writeFileSync(instructionsFile(folder), `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
const none = { identical: 0, missing: 0, extra: 0, different: 0 };

for (const store of ['sqlite', 'postgres'] as const) {
  describe.skipIf(store === 'postgres' && !postgresAvailable())(`import-ledger verify: business payment instructions (${store})`, () => {
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
      service = await startService({ store, paymentVendors: createPaymentVendors({ baseUrls: { STRIPE: vendor.url }, timeoutMs: 1_000 }) });
    });
    afterEach(async () => {
      await service.stop();
      folder?.cleanup();
    });

    it('a migrated folder verifies identical; then a line changed, one taken out and one never sent are different, extra and missing', async () => {
      folder = writeFolder({ accounts: 2, ndjson: true });
      const { import_supplier_code: _omitted, valid_from: _v, ...bare } = example;
      const second = { ...bare, reference: 'pm_biz_2', accounts: [{ external_account_number: ext(2) }, { external_account_number: ext(1) }] };
      const third = { ...bare, reference: 'pm_biz_3', type: 'CARD', accounts: [] };
      writeInstructions(folder, [example, second, third]);
      for (const reference of [FIRST, 'pm_biz_2', 'pm_biz_3', 'pm_biz_4']) vendor.script(reference, { kind: 'found' });
      expect((await runMigration(service, folder)).exitCode).toBe(0);

      const same = await runVerify(service, folder);
      expect(differences(folder)).toEqual([]);
      expect(same.exitCode).toBe(0);
      expect(same.summary.business_payment_instructions).toEqual({ ...none, identical: 3 });

      // The source changes after the migration: the first's type, the second's accounts named in another
      // order (the same fact), the third gone, a fourth and one of a business never created never sent, a broken line.
      writeInstructions(folder, [
        { ...example, type: 'CARD', valid_from: '2025-08-01' },
        { ...second, accounts: [...second.accounts].reverse() },
        { ...bare, reference: 'pm_biz_4' },
        { ...bare, external_business_identifier: 'BIZ-NEVER', reference: 'pm_never' },
        '{"broken',
      ]);
      const changed = await runVerify(service, folder);
      expect(changed.exitCode).toBe(1);
      const lines = differences(folder);
      const kind = 'business_payment_instructions';
      expect(lines).toContainEqual({ kind, item: 'line 5', difference: 'different', field: 'source', source: expect.stringContaining('payment-instructions.ndjson:5'), service: null });
      expect(lines).toContainEqual({ kind, item: `${BIZ}/${FIRST}`, difference: 'different', field: 'type', source: 'CARD', service: 'DIRECT_DEBIT' });
      expect(lines).toContainEqual({ kind, item: `${BIZ}/${FIRST}`, difference: 'different', field: 'valid_from', source: '2025-08-01', service: '2025-07-01' });
      expect(lines).toContainEqual({ kind, item: `${BIZ}/pm_biz_3`, difference: 'extra', field: 'present', source: null, service: '["pm_biz_3","STRIPE","CARD",null,[]]' });
      expect(lines).toContainEqual({ kind, item: `${BIZ}/pm_biz_4`, difference: 'missing', field: 'present', source: `["pm_biz_4","STRIPE","DIRECT_DEBIT",null,["${ext(1)}"]]`, service: null });
      expect(lines).toContainEqual({ kind, item: 'BIZ-NEVER/pm_never', difference: 'missing', field: 'present', source: `["pm_never","STRIPE","DIRECT_DEBIT",null,["${ext(1)}"]]`, service: null });
      expect(lines).toHaveLength(6);
      // Each instruction counted once, whatever number of its fields differ.
      expect(changed.summary.business_payment_instructions).toEqual({ identical: 1, missing: 2, extra: 1, different: 2 });

      // Without the file, every instruction of the folder's business the service holds is extra.
      rmSync(instructionsFile(folder));
      const without = await runVerify(service, folder);
      expect(without.exitCode).toBe(1);
      expect(differences(folder).map((d) => `${d.item} ${d.difference}`).sort()).toEqual([`${BIZ}/${FIRST} extra`, `${BIZ}/pm_biz_2 extra`, `${BIZ}/pm_biz_3 extra`]);
    });

    it(`more than ${BUSINESS_PAYMENT_INSTRUCTIONS_PAGE} on a business: every page of the read is compared`, async () => {
      folder = writeFolder({ accounts: 1, ndjson: true });
      const { accounts: _a, ...noAccounts } = example;
      const references = Array.from({ length: BUSINESS_PAYMENT_INSTRUCTIONS_PAGE + 2 }, (_, i) => `pm_${String(i).padStart(4, '0')}`);
      for (const reference of references) vendor.script(reference, { kind: 'found' });
      writeInstructions(folder, references.map((reference) => ({ ...noAccounts, reference })));
      expect((await runMigration(service, folder)).exitCode).toBe(0);
      const same = await runVerify(service, folder);
      expect(differences(folder)).toEqual([]);
      expect(same.summary.business_payment_instructions).toEqual({ ...none, identical: references.length });

      // The last by reference is on the read's second page.
      writeInstructions(folder, references.slice(0, -1).map((reference) => ({ ...noAccounts, reference })));
      const changed = await runVerify(service, folder);
      expect(changed.exitCode).toBe(1);
      expect(differences(folder).map((d) => `${d.item} ${d.difference}`)).toEqual([`${BIZ}/${references.at(-1)} extra`]);
    });
  });
}
