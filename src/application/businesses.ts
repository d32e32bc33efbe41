import { businessStreamId } from '../../events/business.js';
import type { BusinessPayload } from '../domain/business/business-payload.js';
import { contractIdentifierReferences, productCodeReferences } from '../domain/business/business-references.js';
import { businessDecider } from '../domain/business/decider.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';

export interface CreateBusinessResult {
  readonly platformBusinessId: number;
  /** False when the same business was sent again and the existing one is returned (nothing appended). */
  readonly created: boolean;
}

/**
 * Creates a business with its contracts (spec 4.4), or returns the existing one when the same business is
 * sent again (spec 2.4). The facts (existing products, contract identifiers taken in the supplier) are read
 * before the transaction; a concurrent claim of an identifier violates the business_contracts primary key
 * and is retried on fresh facts.
 */
export async function createBusiness(ctx: LedgerContext, payload: BusinessPayload, actor: Actor): Promise<CreateBusinessResult> {
  const importSupplier = payload.import_supplier_code;
  const externalBusinessIdentifier = payload.external_business_identifier;
  return withRetry(async () => {
    const productCodes = productCodeReferences(payload).map((ref) => ref.value);
    const contractIdentifiers = contractIdentifierReferences(payload).map((ref) => ref.value);
    const result = await handle(ctx, actor, businessDecider, businessStreamId(importSupplier, externalBusinessIdentifier), {
      type: 'CreateBusiness',
      payload,
      existingProductCodes: await ctx.read.existingProductCodes(productCodes),
      takenContractIdentifiers: await ctx.read.takenContractIdentifiers(importSupplier, contractIdentifiers),
    });
    const created = result.events.find((stored) => stored.event.type === 'BusinessCreated');
    if (created) return { platformBusinessId: created.globalPosition, created: true };
    const existing = await ctx.read.findBusiness(importSupplier, externalBusinessIdentifier);
    // The decider returned nothing only because the business exists, and its projection row is written with it.
    if (!existing) throw new Error(`business ${externalBusinessIdentifier} exists in the log but not in its projection`);
    return { platformBusinessId: existing.platformBusinessId, created: false };
  });
}
