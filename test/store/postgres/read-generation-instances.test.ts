import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../projections/index.js';
import { createApiKey, createImportSupplier, createOperationsTeam, revokeApiKey, setImportSupplierStatus, setServiceConfig } from '../../../src/application/operator.js';
import { stageAccount } from '../../../src/application/account-import-processes.js';
import { validateAccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import { loadExample } from '../../support/ledger.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { openInstances, type Instances } from './instances.js';
import { createExampleProducts } from '../../support/products.js';

const operator = { actor: 'operator:test', requestId: null };

/**
 * Each instance keeps API keys, suppliers, teams and settings in memory behind
 * the read generation (src/queries/generation-cached-reads.ts): what another
 * instance, or an outside rebuild, changes must show on the next read, exactly
 * as when every read went to the database.
 */
describe('rows kept in memory behind the read generation, with two instances', () => {
  if (skipWithoutPostgres()) return;
  let t: Instances;
  beforeEach(async () => {
    t = await openInstances();
    await createImportSupplier(t.a, { code: 'LEGACY_ENERGIE', status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  });
  afterEach(async () => t.close());

  const generation = async () => Number((await t.sql<{ generation: string }>('SELECT generation FROM read_generation'))[0]!.generation);

  it('a key revoked on one instance is revoked on the other at its next read', async () => {
    const { keyId } = await createApiKey(t.b, { suppliers: ['LEGACY_ENERGIE'], label: null }, operator);
    expect(await t.a.read.findApiKey(keyId)).toMatchObject({ revokedAt: null });
    expect(await t.a.read.findApiKey(keyId)).toMatchObject({ revokedAt: null });
    await revokeApiKey(t.b, keyId, operator);
    expect((await t.a.read.findApiKey(keyId))?.revokedAt).not.toBeNull();
  });

  it("a supplier's status, a new team and a setting changed on one instance show on the other at its next read", async () => {
    expect(await t.a.read.findImportSupplier('LEGACY_ENERGIE')).toMatchObject({ status: 'Ongoing' });
    expect(await t.a.read.operationsTeamExists('Migrations')).toBe(false);
    expect(await t.a.read.configValue('request-rate-per-second')).toBeNull();

    await setImportSupplierStatus(t.b, 'LEGACY_ENERGIE', 'Complete', operator);
    expect(await t.a.read.findImportSupplier('LEGACY_ENERGIE')).toMatchObject({ status: 'Complete' });
    await createOperationsTeam(t.b, 'Migrations', operator);
    expect(await t.a.read.operationsTeamExists('Migrations')).toBe(true);
    await setServiceConfig(t.b, 'request-rate-per-second', 5, operator);
    expect(await t.a.read.configValue('request-rate-per-second')).toBe(5);
  });

  it('the generation moves with those tables only: staging accounts leaves it where it was', async () => {
    // Staging checks what the payload refers to: the example's products are there first.
    await createExampleProducts(t.a);
    const before = await generation();
    await createOperationsTeam(t.a, 'Migrations', operator);
    expect(await generation()).toBe(before + 1);
    const parsed = validateAccountPayload(loadExample('account-domestic.json'));
    if (!parsed.ok) throw new Error('the example does not validate');
    await stageAccount(t.a, parsed.data, operator);
    expect(await generation()).toBe(before + 1);
  });

  it('a rebuild that replaces one of those tables moves the generation: every instance reads the rebuilt rows', async () => {
    // An operator's console changes a row behind the ledger's back (no generation moves), and instance a keeps it...
    await t.sql(`UPDATE import_suppliers SET status = 'Complete' WHERE code = 'LEGACY_ENERGIE'`);
    expect(await t.a.read.findImportSupplier('LEGACY_ENERGIE')).toMatchObject({ status: 'Complete' });
    expect(await t.a.read.findImportSupplier('LEGACY_ENERGIE')).toMatchObject({ status: 'Complete' });
    // ...until a rebuild from the log, on instance b, puts the table right: a reads the rebuilt row.
    await t.b.projections.rebuild(inlineProjections.filter((p) => p.name === 'import_suppliers'));
    expect(await t.a.read.findImportSupplier('LEGACY_ENERGIE')).toMatchObject({ status: 'Ongoing' });
  });
});
