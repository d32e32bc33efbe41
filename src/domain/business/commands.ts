import type { BusinessContract, BusinessPayload } from './business-payload.js';

/** What the contracts of a command name, looked up before deciding. */
export interface ContractFacts {
  /** Which of the product codes the contracts name exist. Products are never deleted: a code found cannot go stale. */
  readonly existingProductCodes: readonly string[];
  /**
   * Which of the contract identifiers already belong to a business of the supplier (this one included). A
   * concurrent claim is caught by the business_contracts projection's primary key, and the command retried.
   */
  readonly takenContractIdentifiers: readonly string[];
  readonly now: string;
}

/** Create a business with all its contracts (spec 4.4). The payload has passed validateBusinessPayload. */
export interface CreateBusiness extends ContractFacts {
  readonly type: 'CreateBusiness';
  readonly payload: BusinessPayload;
}

/** Add validated contracts to an existing business (business-contracts/create/). */
export interface AddBusinessContracts extends ContractFacts {
  readonly type: 'AddBusinessContracts';
  readonly importSupplier: string;
  readonly externalBusinessIdentifier: string;
  readonly contracts: readonly BusinessContract[];
}

export type BusinessCommand = CreateBusiness | AddBusinessContracts;
