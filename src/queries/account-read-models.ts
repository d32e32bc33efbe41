import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { ImportProcessState } from '../../projections/account-import-processes.js';
import { accountImportProcesses, type AccountImportProcessRow } from '../../projections/account-import-processes.js';
import { apiKeys, type ApiKeyRow } from '../../projections/api-keys.js';
import { importSuppliers, type ImportSupplierRow } from '../../projections/import-suppliers.js';
import { operationsTeams } from '../../projections/operations-teams.js';
import { serviceConfig } from '../../projections/service-config.js';
import type { ServiceConfigKey } from '../../events/service-config.js';
import type { LedgerDb } from '../store/database.js';

/** Queries over the walking-skeleton projections: suppliers, teams, API keys, account import processes, config. */
export interface AccountReadModels {
  findImportSupplier(code: string): Promise<ImportSupplierRow | null>;
  listImportSuppliers(): Promise<ImportSupplierRow[]>;
  operationsTeamExists(name: string): Promise<boolean>;
  listOperationsTeams(): Promise<string[]>;
  findApiKey(keyId: string): Promise<ApiKeyRow | null>;
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRow | null>;
  listApiKeys(): Promise<ApiKeyRow[]>;
  findAccountImportProcess(importSupplier: string, externalAccountNumber: string): Promise<AccountImportProcessRow | null>;
  listAccountImportProcesses(importSupplier: string, states: readonly ImportProcessState[]): Promise<AccountImportProcessRow[]>;
  configValue(key: ServiceConfigKey): Promise<number | null>;
}

export function createSqliteAccountReadModels(db: LedgerDb): AccountReadModels {
  // The queries every request makes are prepared once.
  const supplierByCode = db.select().from(importSuppliers).where(eq(importSuppliers.code, sql.placeholder('code'))).prepare();
  const teamByName = db
    .select({ name: operationsTeams.name })
    .from(operationsTeams)
    .where(eq(operationsTeams.name, sql.placeholder('name')))
    .prepare();
  const keyById = db.select().from(apiKeys).where(eq(apiKeys.keyId, sql.placeholder('keyId'))).prepare();
  const keyByHash = db.select().from(apiKeys).where(eq(apiKeys.keyHash, sql.placeholder('keyHash'))).prepare();
  const processByKey = db
    .select()
    .from(accountImportProcesses)
    .where(
      and(
        eq(accountImportProcesses.importSupplier, sql.placeholder('importSupplier')),
        eq(accountImportProcesses.externalAccountNumber, sql.placeholder('externalAccountNumber')),
      ),
    )
    .prepare();
  const configByKey = db.select({ value: serviceConfig.value }).from(serviceConfig).where(eq(serviceConfig.key, sql.placeholder('key'))).prepare();
  return {
    async findImportSupplier(code) {
      return supplierByCode.get({ code }) ?? null;
    },
    async listImportSuppliers() {
      return db.select().from(importSuppliers).orderBy(asc(importSuppliers.code)).all();
    },
    async operationsTeamExists(name) {
      return teamByName.get({ name }) !== undefined;
    },
    async listOperationsTeams() {
      return db.select({ name: operationsTeams.name }).from(operationsTeams).orderBy(asc(operationsTeams.name)).all().map((r) => r.name);
    },
    async findApiKey(keyId) {
      return keyById.get({ keyId }) ?? null;
    },
    async findApiKeyByHash(keyHash) {
      return keyByHash.get({ keyHash }) ?? null;
    },
    async listApiKeys() {
      return db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt)).all();
    },
    async findAccountImportProcess(importSupplier, externalAccountNumber) {
      return processByKey.get({ importSupplier, externalAccountNumber }) ?? null;
    },
    async listAccountImportProcesses(importSupplier, states) {
      return db
        .select()
        .from(accountImportProcesses)
        .where(and(eq(accountImportProcesses.importSupplier, importSupplier), inArray(accountImportProcesses.state, [...states])))
        .orderBy(asc(accountImportProcesses.firstStagedAt), asc(accountImportProcesses.externalAccountNumber))
        .all();
    },
    async configValue(key) {
      return configByKey.get({ key })?.value ?? null;
    },
  };
}
