import { eq, sql } from 'drizzle-orm';
import { products, type ProductRow } from '../../projections/products.js';
import type { LedgerDb } from '../store/database.js';

/** Queries over the products projection (the shared catalogue). */
export interface ProductReadModels {
  findProduct(code: string): Promise<ProductRow | null>;
  /** The products among `codes` that exist, keyed by code. */
  findProducts(codes: readonly string[]): Promise<Map<string, ProductRow>>;
  /** The market of each product among `codes` that exists (no rates read: what account checks need). */
  productMarkets(codes: readonly string[]): Promise<Map<string, ProductRow['marketName']>>;
}

export function createSqliteProductReadModels(db: LedgerDb): ProductReadModels {
  // Prepared once: these run on every account validation.
  const byCode = db.select().from(products).where(eq(products.code, sql.placeholder('code'))).prepare();
  const marketByCode = db
    .select({ marketName: products.marketName })
    .from(products)
    .where(eq(products.code, sql.placeholder('code')))
    .prepare();
  return {
    async findProduct(code) {
      return byCode.get({ code }) ?? null;
    },
    async findProducts(codes) {
      const found = new Map<string, ProductRow>();
      for (const code of new Set(codes)) {
        const row = byCode.get({ code });
        if (row) found.set(code, row);
      }
      return found;
    },
    async productMarkets(codes) {
      const found = new Map<string, ProductRow['marketName']>();
      for (const code of new Set(codes)) {
        const row = marketByCode.get({ code });
        if (row) found.set(code, row.marketName);
      }
      return found;
    },
  };
}
