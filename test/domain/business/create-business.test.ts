import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBusiness } from '../../../src/application/businesses.js';
import type { LedgerContext } from '../../../src/application/context.js';
import { validateBusinessPayload } from '../../../src/domain/business/business-payload.js';
import { DomainError } from '../../../src/domain/errors.js';
import { minimalBusiness } from '../../support/business.js';
import { SUPPLIER, createTestLedger, operator, type TestLedger } from '../../support/ledger.js';

function payload(ext: string, contract: string) {
  const result = validateBusinessPayload(minimalBusiness({ externalBusinessIdentifier: ext, contractIdentifier: contract }));
  if (!result.ok) throw new Error('must validate');
  return result.data;
}

describe('createBusiness: a contract identifier claimed concurrently', () => {
  let t: TestLedger;
  beforeEach(async () => {
    t = await createTestLedger();
  });
  afterEach(async () => {
    await t.close();
  });

  it('the stale fact is caught by the business_contracts key: retried, refused, nothing written', async () => {
    const first = await createBusiness(t.ledger, payload('BIZ-1', 'CTR-A'), operator);
    // The second request read its facts before the first committed: it believes CTR-A is free once.
    let reads = 0;
    const stale: LedgerContext = {
      ...t.ledger,
      read: {
        ...t.ledger.read,
        takenContractIdentifiers: async (supplier, identifiers) =>
          reads++ === 0 ? [] : t.ledger.read.takenContractIdentifiers(supplier, identifiers),
      },
    };
    const before = (await t.ledger.store.readAll(0, 1000)).length;
    const error = await createBusiness(stale, payload('BIZ-2', 'CTR-A'), operator).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('business_failed_validation');
    expect((error as DomainError).errors).toEqual([expect.objectContaining({ code: 'contract_with_identifier_exists' })]);
    expect(reads).toBe(2);
    expect((await t.ledger.store.readAll(0, 1000)).length).toBe(before);
    expect(await t.ledger.read.findBusiness(SUPPLIER, 'BIZ-2')).toBeNull();
    expect(await t.ledger.read.findBusinessContract(SUPPLIER, 'CTR-A')).toMatchObject({
      externalBusinessIdentifier: 'BIZ-1',
      platformBusinessId: first.platformBusinessId,
    });
  });
});
