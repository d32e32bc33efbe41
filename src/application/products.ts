import { productStreamId } from '../../events/product.js';
import { productDraftFrom } from '../domain/product/commands.js';
import { productDecider } from '../domain/product/decider.js';
import type { ProductImportOutcome, ProductPayload } from '../domain/product/product-payload.js';
import { handleMany, on } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';

/**
 * Creates the new products and appends the new rates of the existing ones (spec 4.3), all or nothing: one
 * command per product, every stream in one transaction. A dry run (validate-products/) runs the same path
 * and rolls back. Products are the platform's shared catalogue: no import supplier is involved.
 */
export async function importProducts(
  ctx: LedgerContext,
  products: readonly ProductPayload[],
  actor: Actor,
  options: { dryRun: boolean },
): Promise<ProductImportOutcome[]> {
  const { results } = await handleMany(
    ctx,
    actor,
    products.map((payload, index) => on(productStreamId(payload.code), productDecider, { type: 'ImportProduct', index, product: productDraftFrom(payload) })),
    { dryRun: options.dryRun },
  );
  return results.map((result, index) => ({
    code: products[index]!.code,
    created: result.events.some((stored) => stored.event.type === 'ProductCreated'),
    ratesAdded: result.events.reduce(
      (count, stored) => count + (stored.event.type === 'RatesAdded' ? stored.event.data.rates.length : 0),
      0,
    ),
  }));
}
