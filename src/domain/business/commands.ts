import type { BusinessContract, BusinessPayload } from './business-payload.js';

/** Create a business with all its contracts (spec 4.4). The payload has passed validateBusinessPayload. */
export interface CreateBusiness {
  readonly type: 'CreateBusiness';
  readonly payload: BusinessPayload;
  /** Fact: which of the product codes the contracts name exist. Products are never deleted: a code found cannot go stale. */
  readonly existingProductCodes: readonly string[];
  /**
   * Fact: which of the contract identifiers already belong to a business of the supplier (this one included).
   * A concurrent claim is caught by the business_contracts projection's primary key, and the command retried.
   */
  readonly takenContractIdentifiers: readonly string[];
  /** ISO timestamp from the injected clock. */
  readonly now: string;
}

/** Add validated contracts to an existing business (business-contracts/create/); the facts are CreateBusiness's. */
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
