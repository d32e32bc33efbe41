import { eventLogContract } from './event-log.contract.js';
import { eventStoreContract } from './event-store.contract.js';
import type { LedgerFactory } from './harness.js';
import { idempotencyContract } from './idempotency.contract.js';
import { projectionsContract } from './projections.contract.js';
import { relaysContract } from './relays.contract.js';
import { webhookStorageContract } from './webhook-storage.contract.js';

export type { ContractLedger, LedgerFactory } from './harness.js';

/**
 * The store contract suite: every guarantee the service relies on, checked
 * through the ports only. Each store runs all of it with its own factory.
 */
export function storeContract(open: LedgerFactory): void {
  eventStoreContract(open);
  idempotencyContract(open);
  eventLogContract(open);
  projectionsContract(open);
  relaysContract(open);
  webhookStorageContract(open);
}

export { eventLogContract, eventStoreContract, idempotencyContract, projectionsContract, relaysContract, webhookStorageContract };
