import { applyRatesAdded, type ProductCreated, type ProductEvent, type ProductRate } from '../../../events/product.js';
import { assertNever } from '../assert-never.js';

/** A product code is unknown until created; then its attributes are fixed and its rates only grow. */
export type ProductState =
  | { readonly status: 'none' }
  | {
      readonly status: 'created';
      readonly product: ProductCreated['data'];
      readonly rates: readonly ProductRate[];
    };

export const initialProductState: ProductState = { status: 'none' };

export function evolveProduct(state: ProductState, event: ProductEvent): ProductState {
  switch (event.type) {
    case 'ProductCreated':
      return state.status === 'none' ? { status: 'created', product: event.data, rates: [] } : state;
    case 'RatesAdded':
      return state.status === 'created' ? { ...state, rates: applyRatesAdded(state.rates, event) } : state;
    default:
      return assertNever(event);
  }
}
