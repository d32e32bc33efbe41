import type { SupplyPointPopulateBatchEvent, SupplyPointPopulateRequested } from '../../../events/supply-point-populate.js';
import type { Decider } from '../decider.js';
import { assertNever } from '../assert-never.js';
import { DomainError } from '../errors.js';
import { CUSTOMER_CATEGORIES, populateIdentifierErrors, type CustomerCategory } from './populate-request.js';

export type PopulateBatchCommand = {
  readonly type: 'CreatePopulateBatch';
  readonly batchId: string;
  readonly customerCategory: CustomerCategory;
  /** The import suppliers of the caller's key: who may read the batch's status. */
  readonly importSuppliers: readonly string[];
  readonly prmIds: readonly string[];
  readonly pceIds: readonly string[];
  readonly now: string;
};

export type PopulateBatchState = { readonly exists: false } | { readonly exists: true; readonly requestCount: number };

/**
 * The batch and one request per identifier in one decision (one transaction): PRM ids, then PCE ids, each in
 * the order given, which their sequence numbers keep for the worker.
 */
function decide(command: PopulateBatchCommand, state: PopulateBatchState): SupplyPointPopulateBatchEvent[] {
  if (state.exists) throw new DomainError('populate_batch_already_exists', `Batch ${command.batchId} already exists.`);
  if (!(CUSTOMER_CATEGORIES as readonly string[]).includes(command.customerCategory)) {
    throw new DomainError('validation_error', 'Invalid input.', {
      errors: [{ code: 'invalid_choice', attr: 'customer_category', detail: `Not a valid choice: ${command.customerCategory}.` }],
    });
  }
  const errors = populateIdentifierErrors(command.prmIds, command.pceIds);
  if (errors.length > 0) throw new DomainError('validation_error', 'Invalid input.', { errors });
  const requests: SupplyPointPopulateRequested[] = [
    ...command.prmIds.map((identifier) => ({ supplyType: 'ELECTRICITY' as const, identifier })),
    ...command.pceIds.map((identifier) => ({ supplyType: 'GAS' as const, identifier })),
  ].map(({ supplyType, identifier }, index) => ({
    type: 'SupplyPointPopulateRequested',
    version: 1,
    data: { batchId: command.batchId, sequence: index + 1, supplyType, identifier, requestedAt: command.now },
  }));
  return [
    {
      type: 'SupplyPointPopulateBatchCreated',
      version: 1,
      data: {
        batchId: command.batchId,
        customerCategory: command.customerCategory,
        importSuppliers: [...command.importSuppliers],
        prmCount: command.prmIds.length,
        pceCount: command.pceIds.length,
        createdAt: command.now,
      },
    },
    ...requests,
  ];
}

function evolve(state: PopulateBatchState, event: SupplyPointPopulateBatchEvent): PopulateBatchState {
  switch (event.type) {
    case 'SupplyPointPopulateBatchCreated':
      return { exists: true, requestCount: 0 };
    case 'SupplyPointPopulateRequested':
      return state.exists ? { exists: true, requestCount: state.requestCount + 1 } : state;
    default:
      return assertNever(event);
  }
}

export const populateBatchDecider: Decider<PopulateBatchCommand, SupplyPointPopulateBatchEvent, SupplyPointPopulateBatchEvent, PopulateBatchState> = {
  decide,
  evolve,
  initialState: { exists: false },
};
