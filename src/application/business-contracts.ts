import { businessStreamId } from '../../events/business.js';
import type { BusinessContractsPayload } from '../domain/business/business-contracts-payload.js';
import { businessDecider } from '../domain/business/decider.js';
import { contractIdentifierReferencesOf, contractProductCodeReferences } from '../domain/business/business-references.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';

/**
 * Adds contracts to an existing business (business-contracts/create/). As for business/, the facts
 * (existing products, identifiers taken in the supplier) are read before the transaction; a concurrent
 * claim of an identifier violates the business_contracts primary key and is retried on fresh facts.
 */
export async function addBusinessContracts(ctx: LedgerContext, payload: BusinessContractsPayload, actor: Actor): Promise<readonly string[]> {
  const importSupplier = payload.import_supplier_code;
  const contracts = payload.business_contracts;
  return withRetry(async () => {
    const productCodes = contractProductCodeReferences(contracts, 'business_contracts').map((ref) => ref.value);
    const identifiers = contractIdentifierReferencesOf(contracts, 'business_contracts').map((ref) => ref.value);
    await handle(ctx, actor, businessDecider, businessStreamId(importSupplier, payload.external_business_identifier), {
      type: 'AddBusinessContracts',
      importSupplier,
      externalBusinessIdentifier: payload.external_business_identifier,
      contracts,
      existingProductCodes: await ctx.read.existingProductCodes(productCodes),
      takenContractIdentifiers: await ctx.read.takenContractIdentifiers(importSupplier, identifiers),
    });
    return identifiers;
  });
}
