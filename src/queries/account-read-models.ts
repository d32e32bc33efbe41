import { asc, eq, sql } from 'drizzle-orm';
import { accountImportProcesses, type AccountImportProcessRow } from '../../projections/account-import-processes.js';
import { apiKeys, type ApiKeyRow } from '../../projections/api-keys.js';
import { importSuppliers, type ImportSupplierRow } from '../../projections/import-suppliers.js';
import { operationsTeams } from '../../projections/operations-teams.js';
import { serviceConfig } from '../../projections/service-config.js';
import type { ServiceConfigKey } from '../../events/service-config.js';
import type { ProjectionQueries } from '../store/projection-queries.js';
import { ofAccount } from './account-list-read-models.js';

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
  configValue(key: ServiceConfigKey): Promise<number | null>;
}

export function createAccountReadModels(q: ProjectionQueries): AccountReadModels {
  // The queries every request makes are prepared once.
  const supplierByCode = q.prepareOne(importSuppliers, eq(importSuppliers.code, sql.placeholder('code')));
  const teamByName = q.prepareOne(operationsTeams, eq(operationsTeams.name, sql.placeholder('name')));
  const keyById = q.prepareOne(apiKeys, eq(apiKeys.keyId, sql.placeholder('keyId')));
  const keyByHash = q.prepareOne(apiKeys, eq(apiKeys.keyHash, sql.placeholder('keyHash')));
  const processByKey = q.prepareOne(
    accountImportProcesses,
    ofAccount(accountImportProcesses, sql.placeholder('importSupplier'), sql.placeholder('externalAccountNumber')),
  );
  const configByKey = q.prepareOne(serviceConfig, eq(serviceConfig.key, sql.placeholder('key')));
  return {
    findImportSupplier: (code) => supplierByCode({ code }),
    listImportSuppliers: () => q.list(importSuppliers, { orderBy: [asc(importSuppliers.code)] }),
    operationsTeamExists: async (name) => (await teamByName({ name })) !== null,
    listOperationsTeams: async () => (await q.list(operationsTeams, { orderBy: [asc(operationsTeams.name)] })).map((r) => r.name),
    findApiKey: (keyId) => keyById({ keyId }),
    findApiKeyByHash: (keyHash) => keyByHash({ keyHash }),
    listApiKeys: () => q.list(apiKeys, { orderBy: [asc(apiKeys.createdAt)] }),
    findAccountImportProcess: (importSupplier, externalAccountNumber) => processByKey({ importSupplier, externalAccountNumber }),
    configValue: async (key) => (await configByKey({ key }))?.value ?? null,
  };
}
