import { describe, it } from 'vitest';
import type { SupplyPointPopulateBatchEvent } from '../../../events/supply-point-populate.js';
import { populateBatchDecider, type PopulateBatchCommand } from '../../../src/domain/supply-point/populate-batch-decider.js';
import { given } from '../../support/given.js';

const NOW = '2026-11-21T10:00:00.000Z';
const create = (over: Partial<PopulateBatchCommand> = {}): PopulateBatchCommand => ({
  type: 'CreatePopulateBatch',
  batchId: 'b-1',
  customerCategory: 'Domestic',
  importSuppliers: ['LEGACY_ENERGIE'],
  prmIds: ['09111642617347'],
  pceIds: ['GI123456', '21461231498752'],
  now: NOW,
  ...over,
});

const created: SupplyPointPopulateBatchEvent = {
  type: 'SupplyPointPopulateBatchCreated',
  version: 1,
  data: { batchId: 'b-1', customerCategory: 'Domestic', importSuppliers: ['LEGACY_ENERGIE'], prmCount: 1, pceCount: 2, createdAt: NOW },
};
const requested = (sequence: number, supplyType: 'ELECTRICITY' | 'GAS', identifier: string): SupplyPointPopulateBatchEvent => ({
  type: 'SupplyPointPopulateRequested',
  version: 1,
  data: { batchId: 'b-1', sequence, supplyType, identifier, requestedAt: NOW },
});

describe('populate batch decider', () => {
  it('records the batch and one request per identifier, PRMs first, each list in the order given', () => {
    given(populateBatchDecider)
      .when(create())
      .then([created, requested(1, 'ELECTRICITY', '09111642617347'), requested(2, 'GAS', 'GI123456'), requested(3, 'GAS', '21461231498752')]);
  });

  it('re-checks the identifier rules (validation_error, nothing recorded)', () => {
    given(populateBatchDecider).when(create({ prmIds: [], pceIds: [] })).thenFails('validation_error');
    given(populateBatchDecider).when(create({ prmIds: ['123'] })).thenFails('validation_error');
    given(populateBatchDecider).when(create({ customerCategory: 'Other' as never })).thenFails('validation_error');
  });

  it('never records the same batch twice', () => {
    given(populateBatchDecider, [created]).when(create()).thenFails('populate_batch_already_exists');
  });
});
