import type { AddedRate, ProductCreated } from '../../../events/product.js';
import { decimalString } from './decimal.js';
import { bandOfRate } from './product-payload-rules.js';
import type { ProductPayload } from './product-payload.js';

/** A rate to add, from a validated payload: `index` is where it sits in its product's `rates` array (for error paths); `validFromDate` is `YYYY-MM-DD`. */
export type RateDraft = Readonly<Pick<AddedRate, 'band' | 'unitType' | 'pricePerUnit'> & { index: number; validFromDate: string }>;

/** A product as a products/ request describes it: the attributes ProductCreated records, and its rates. */
export type ProductDraft = Omit<ProductCreated['data'], 'createdAt'> & { readonly rates: readonly RateDraft[] };

/**
 * Create the product, or for an existing code add its new rates (spec 4.3):
 * the one command of products/ and validate-products/, per product.
 */
export interface ImportProduct {
  readonly type: 'ImportProduct';
  /** Where the product sits in the request array: error attrs start with it (`0.rates.2.valid_from_date`). */
  readonly index: number;
  readonly product: ProductDraft;
  /** ISO timestamp from the injected clock. */
  readonly now: string;
}

export type ProductCommand = ImportProduct;

export function productDraftFrom(payload: ProductPayload): ProductDraft {
  const params = payload.params;
  return {
    code: payload.code,
    marketName: payload.market_name,
    fullName: payload.full_name,
    displayName: payload.display_name,
    description: payload.description ?? null,
    notes: payload.notes ?? null,
    brand: payload.brand ?? null,
    availableFromDate: payload.available_from_date,
    isHidden: payload.is_hidden ?? null,
    params: {
      segments: 'segments' in params ? (params.segments ?? null) : null,
      isVariable: params.is_variable ?? null,
      costStacking: params.cost_stacking ?? null,
      nextProductCode: params.next_product_code ?? null,
      isDefault: params.is_default ?? null,
    },
    rates: payload.rates.map((rate, index) => ({
      index,
      band: bandOfRate(rate),
      unitType: rate.unit_type,
      validFromDate: rate.valid_from_date,
      pricePerUnit: decimalString(rate.price_per_unit),
    })),
  };
}
