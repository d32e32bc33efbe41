import { eq, sql } from 'drizzle-orm';
import { products, type ProductRow } from '../../projections/products.js';
import type { ProjectionQueries } from '../store/projection-queries.js';

/** Queries over the products projection (the shared catalogue). */
export interface ProductReadModels {
  findProduct(code: string): Promise<ProductRow | null>;
  /** The products among `codes` that exist, keyed by code. */
  findProducts(codes: readonly string[]): Promise<Map<string, ProductRow>>;
  /** The market of each product among `codes` that exists (no rates read: what account checks need). */
  productMarkets(codes: readonly string[]): Promise<Map<string, ProductRow['marketName']>>;
}

export function createProductReadModels(q: ProjectionQueries): ProductReadModels {
  // Prepared once: these run on every account validation.
  const byCode = q.prepareOne(products, eq(products.code, sql.placeholder('code')));
  const marketByCode = q.prepareSelect({ marketName: products.marketName }, sql`FROM ${products} WHERE ${eq(products.code, sql.placeholder('code'))}`);
  return {
    findProduct: (code) => byCode({ code }),
    async findProducts(codes) {
      const found = new Map<string, ProductRow>();
      for (const code of new Set(codes)) {
        const row = await byCode({ code });
        if (row) found.set(code, row);
      }
      return found;
    },
    async productMarkets(codes) {
      const found = new Map<string, ProductRow['marketName']>();
      for (const code of new Set(codes)) {
        const [row] = await marketByCode({ code });
        if (row) found.set(code, row.marketName);
      }
      return found;
    },
  };
}
