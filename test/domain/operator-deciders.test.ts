import { describe, expect, it } from 'vitest';
import { parseLedgerEvent } from '../../events/registry.js';
import type { ApiKeyEvent } from '../../events/api-key.js';
import type { ImportSupplierEvent } from '../../events/import-supplier.js';
import { apiKeyDecider } from '../../src/domain/api-key/api-key-decider.js';
import { importSupplierDecider } from '../../src/domain/import-supplier/import-supplier-decider.js';
import { operationsTeamDecider } from '../../src/domain/operations-team/operations-team-decider.js';
import { serviceConfigDecider } from '../../src/domain/service-config/service-config-decider.js';
import { given } from '../support/given.js';

const NOW = '2026-11-21T10:00:00.000Z';
const created: ImportSupplierEvent = {
  type: 'ImportSupplierCreated',
  version: 1,
  data: { code: 'ACME', status: 'Ongoing', sendEmails: false, documentRoot: null, createdAt: NOW },
};

describe('import supplier decider', () => {
  const create = { type: 'CreateImportSupplier' as const, code: 'ACME', status: 'Ongoing' as const, sendEmails: false, documentRoot: null, now: NOW };

  it('creates a supplier once', () => {
    given(importSupplierDecider).when(create).then([created]);
    given(importSupplierDecider, [created]).when(create).thenFails('import_supplier_already_exists');
  });

  it('refuses codes outside A-Z 0-9 _ -', () => {
    given(importSupplierDecider).when({ ...create, code: 'acme' }).thenFails('invalid_import_supplier_code');
    given(importSupplierDecider).when({ ...create, code: 'A:B' }).thenFails('invalid_import_supplier_code');
  });

  it('changes status, records from and to, and ignores a change to the same status', () => {
    given(importSupplierDecider, [created])
      .when({ type: 'ChangeImportSupplierStatus', code: 'ACME', to: 'Paused', now: NOW })
      .then([{ type: 'ImportSupplierStatusChanged', version: 1, data: { code: 'ACME', from: 'Ongoing', to: 'Paused', changedAt: NOW } }]);
    given(importSupplierDecider, [created]).when({ type: 'ChangeImportSupplierStatus', code: 'ACME', to: 'Ongoing', now: NOW }).then([]);
    given(importSupplierDecider).when({ type: 'ChangeImportSupplierStatus', code: 'ACME', to: 'Paused', now: NOW }).thenFails('import_supplier_not_found');
  });

  it('records a verification with the service it compared, and refuses one that compared another service', () => {
    const summary = { accounts: { identical: 3, missing: 0, extra: 0, different: 0 } };
    const record = { type: 'RecordVerification' as const, code: 'ACME', agree: true, summary, serviceId: 'svc-a', now: NOW };
    const verified: ImportSupplierEvent = { type: 'ImportSupplierVerified', version: 2, data: { code: 'ACME', agree: true, summary, serviceId: 'svc-a', verifiedAt: NOW } };
    given(importSupplierDecider, [created]).when(record).then([verified]);
    given(importSupplierDecider, [created]).when({ ...record, comparedWith: 'svc-a' }).then([verified]);
    given(importSupplierDecider, [created]).when({ ...record, comparedWith: 'svc-b' }).thenFails('validation_error');
    given(importSupplierDecider).when(record).thenFails('import_supplier_not_found');
  });

  it('reads a verification stored before it named its service (version 1) as naming none', () => {
    const v1 = { code: 'ACME', agree: false, summary: {}, verifiedAt: NOW };
    expect(parseLedgerEvent('ImportSupplierVerified', 1, v1)).toEqual({ type: 'ImportSupplierVerified', version: 2, data: { ...v1, serviceId: null } });
  });

  it('records only the configuration keys that change', () => {
    given(importSupplierDecider, [created])
      .when({ type: 'ChangeImportSupplierConfig', code: 'ACME', sendEmails: true, documentRoot: null, now: NOW })
      .then([{ type: 'ImportSupplierConfigChanged', version: 1, data: { code: 'ACME', sendEmails: true, changedAt: NOW } }]);
  });
});

describe('API key decider', () => {
  const createKey = {
    type: 'CreateApiKey' as const,
    keyId: 'key_1',
    keyHash: 'h',
    suppliers: ['ACME', 'ACME'],
    unknownSuppliers: [],
    label: null,
    now: NOW,
  };
  const keyCreated: ApiKeyEvent = {
    type: 'ApiKeyCreated',
    version: 1,
    data: { keyId: 'key_1', keyHash: 'h', suppliers: ['ACME'], label: null, createdAt: NOW },
  };

  it('creates a key scoped to existing suppliers (deduplicated)', () => {
    given(apiKeyDecider).when(createKey).then([keyCreated]);
    given(apiKeyDecider).when({ ...createKey, unknownSuppliers: ['NOPE'] }).thenFails('import_supplier_not_found');
    given(apiKeyDecider).when({ ...createKey, suppliers: [] }).thenFails('api_key_requires_supplier');
  });

  it('revokes once; unknown keys are refused', () => {
    const revoke = { type: 'RevokeApiKey' as const, keyId: 'key_1', now: NOW };
    const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', version: 1, data: { keyId: 'key_1', revokedAt: NOW } };
    given(apiKeyDecider, [keyCreated]).when(revoke).then([revoked]);
    given(apiKeyDecider, [keyCreated, revoked]).when(revoke).then([]);
    given(apiKeyDecider).when(revoke).thenFails('api_key_not_found');
  });
});

describe('operations team and service config deciders', () => {
  it('creates a team once, with a sane name', () => {
    const create = { type: 'CreateOperationsTeam' as const, name: 'Migrations', now: NOW };
    given(operationsTeamDecider).when(create).then([{ type: 'OperationsTeamCreated', version: 1, data: { name: 'Migrations', createdAt: NOW } }]);
    given(operationsTeamDecider, [{ type: 'OperationsTeamCreated', version: 1, data: { name: 'Migrations', createdAt: NOW } }])
      .when(create)
      .thenFails('operations_team_already_exists');
    given(operationsTeamDecider).when({ ...create, name: ' padded ' }).thenFails('invalid_operations_team_name');
  });

  it('sets the process concurrency limit, off by default, refusing values below 1', () => {
    const set = (value: number | null) => ({ type: 'SetServiceConfig' as const, key: 'process-concurrency-limit' as const, value, now: NOW });
    given(serviceConfigDecider)
      .when(set(4))
      .then([{ type: 'ServiceConfigChanged', version: 1, data: { key: 'process-concurrency-limit', value: 4, changedAt: NOW } }]);
    given(serviceConfigDecider).when(set(null)).then([]);
    given(serviceConfigDecider).when(set(0)).thenFails('invalid_config_value');
  });
});
