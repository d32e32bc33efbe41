import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../projections/index.js';
import { createApiKey, createImportSupplier, createOperationsTeam, revokeApiKey, setImportSupplierStatus, setServiceConfig } from '../../../src/application/operator.js';
import { openLedger, type Ledger } from '../../../src/ledger.js';
import { beginRequest } from '../../../src/queries/request-scope.js';
import { SqliteReadGeneration } from '../../../src/store/sqlite/read-generation.js';
import { tempDatabaseFile } from '../../support/ledger.js';

const operator = { actor: 'operator:test', requestId: null };

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function twoConnections() {
  const { file, cleanup } = tempDatabaseFile();
  const reader = new Database(file);
  reader.pragma('journal_mode = WAL');
  reader.exec('CREATE TABLE t (n INTEGER)');
  const other = new Database(file);
  cleanups.push(cleanup, () => reader.close(), () => other.close());
  return { reader, other };
}

/** SQLite's read generation: another connection's commit moves it (data_version), and so does a change the connection makes itself. */
describe('SqliteReadGeneration', () => {
  it("another connection's commit moves it at the next check", () => {
    const { reader, other } = twoConnections();
    const generation = new SqliteReadGeneration(reader);
    const first = generation.current();
    expect(generation.current()).toBe(first);
    other.exec('INSERT INTO t VALUES (1)');
    expect(generation.current()).toBeGreaterThan(first);
  });

  it("the connection's own changes move it at once; its own commits alone do not", () => {
    const { reader } = twoConnections();
    const generation = new SqliteReadGeneration(reader);
    const first = generation.current();
    reader.exec('INSERT INTO t VALUES (1)');
    expect(generation.current()).toBe(first);
    generation.changed();
    expect(generation.own).toBe(1);
    expect(generation.current()).toBe(first + 1);
  });
});

/**
 * The service keeps API keys, suppliers, teams and settings in memory behind the read generation
 * (src/queries/generation-cached-reads.ts): what its own writes, another process on the file (the command
 * line) or a rebuild change must show on the next read, exactly as when every read went to the file.
 */
describe('rows kept in memory behind the read generation, on SQLite', () => {
  async function ledgers() {
    const { file, cleanup } = tempDatabaseFile();
    const service = await openLedger({ sqliteFile: file });
    const commandLine = await openLedger({ sqliteFile: file });
    cleanups.push(cleanup, () => service.close(), () => commandLine.close());
    await createImportSupplier(service, { code: 'LEGACY_ENERGIE', status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    return { file, service, commandLine };
  }

  it('a key revoked by another process on the file is revoked at the next request', async () => {
    const { service, commandLine } = await ledgers();
    const { keyId } = await createApiKey(commandLine, { suppliers: ['LEGACY_ENERGIE'], label: null }, operator);
    beginRequest();
    expect(await service.read.findApiKey(keyId)).toMatchObject({ revokedAt: null });
    expect(await service.read.findApiKey(keyId)).toMatchObject({ revokedAt: null });
    await revokeApiKey(commandLine, keyId, operator);
    beginRequest();
    expect((await service.read.findApiKey(keyId))?.revokedAt).not.toBeNull();
  });

  it("the service's own changes show at its next read: a supplier's status, a team, a setting, a revoked key", async () => {
    const { service } = await ledgers();
    const { keyId } = await createApiKey(service, { suppliers: ['LEGACY_ENERGIE'], label: null }, operator);
    const read = async (ledger: Ledger) => {
      beginRequest();
      return {
        supplier: await ledger.read.findImportSupplier('LEGACY_ENERGIE'),
        team: await ledger.read.operationsTeamExists('Migrations'),
        rate: await ledger.read.configValue('request-rate-per-second'),
        key: await ledger.read.findApiKey(keyId),
      };
    };
    expect(await read(service)).toMatchObject({ supplier: { status: 'Ongoing' }, team: false, rate: null, key: { revokedAt: null } });
    await setImportSupplierStatus(service, 'LEGACY_ENERGIE', 'Complete', operator);
    await createOperationsTeam(service, 'Migrations', operator);
    await setServiceConfig(service, 'request-rate-per-second', 5, operator);
    await revokeApiKey(service, keyId, operator);
    const after = await read(service);
    expect(after).toMatchObject({ supplier: { status: 'Complete' }, team: true, rate: 5 });
    expect(after.key?.revokedAt).not.toBeNull();
  });

  it("a rebuild on the service's own connection replaces what it kept of a table", async () => {
    const { file, service } = await ledgers();
    // A row changed behind the log's back (another connection), then read and kept by the service.
    const outside = new Database(file);
    outside.prepare("UPDATE import_suppliers SET status = 'Complete' WHERE code = 'LEGACY_ENERGIE'").run();
    outside.close();
    beginRequest();
    expect(await service.read.findImportSupplier('LEGACY_ENERGIE')).toMatchObject({ status: 'Complete' });
    await service.projections.rebuild(inlineProjections.filter((projection) => projection.name === 'import_suppliers'));
    beginRequest();
    expect(await service.read.findImportSupplier('LEGACY_ENERGIE')).toMatchObject({ status: 'Ongoing' });
  });
});
