import type { BusinessContract, BusinessPayload } from './business-payload.js';

/** Create a business with all its contracts (spec 4.4). The payload has passed validateBusinessPayload. */
export interface CreateBusiness {
  readonly type: 'CreateBusiness';
  readonly payload: BusinessPayload;
  /**
   * Fact: which of the product codes the contracts name exist (read from the
   * products projection). Products are never deleted, so a code found cannot
   * go stale; one created meanwhile only makes the answer conservative.
   */
  readonly existingProductCodes: readonly string[];
  /**
   * Fact: which of the payload's contract identifiers already belong to a
   * business of the same import supplier (any business, this one included).
   * A concurrent claim of the same identifier is caught by the primary key of
   * the business_contracts projection, and the command is retried.
   */
  readonly takenContractIdentifiers: readonly string[];
  /** ISO timestamp from the injected clock. */
  readonly now: string;
}

/**
 * Add contracts to an existing business (business-contracts/create/, the
 * platform's endpoint). The contracts have passed validateBusinessContractsPayload. The facts
 * are those of CreateBusiness, read the same way (a concurrent claim of an
 * identifier is caught by the business_contracts primary key and retried).
 */
export interface AddBusinessContracts {
  readonly type: 'AddBusinessContracts';
  readonly importSupplier: string;
  readonly externalBusinessIdentifier: string;
  readonly contracts: readonly BusinessContract[];
  readonly existingProductCodes: readonly string[];
  readonly takenContractIdentifiers: readonly string[];
  readonly now: string;
}

export type BusinessCommand = CreateBusiness | AddBusinessContracts;
