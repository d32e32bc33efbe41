import { z } from 'zod';
import { productStreamId } from '../../events/product.js';
import { validateProducts, type ProductImportOutcome } from '../domain/product/product-payload.js';
import { ofType, type Answer, type Events } from './answer.js';

/** products/ 201: one item per product of the request, in request order. */
export const createProductsResponseSchema = z.object({
  products: z.array(z.object({ code: z.string(), created: z.boolean(), rates_added: z.number().int().min(0) })),
});

export function productsAnswer(outcomes: readonly ProductImportOutcome[]): Answer<z.input<typeof createProductsResponseSchema>> {
  return { status: 201, body: { products: outcomes.map((o) => ({ code: o.code, created: o.created, rates_added: o.ratesAdded })) } };
}

/** Each product of the request, from the events appended to its stream. */
export function productsAnswerFromEvents(request: unknown, events: Events): Answer | null {
  const products = validateProducts(request);
  if (!products.ok) return null;
  return productsAnswer(
    products.data.map(({ code }) => {
      const own = events.filter((stored) => stored.streamId === productStreamId(code));
      return {
        code,
        created: ofType(own, 'ProductCreated').length > 0,
        ratesAdded: ofType(own, 'RatesAdded').reduce((n, stored) => n + stored.event.data.rates.length, 0),
      };
    }),
  );
}
