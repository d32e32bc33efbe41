import { eq, inArray } from 'drizzle-orm';
import { products, type ProductRow } from '../../projections/products.js';
import type { LedgerDb } from '../store/database.js';

/** Queries over the products projection (the shared catalogue). */
export interface ProductReadModels {
  findProduct(code: string): Promise<ProductRow | null>;
  /** The products among `codes` that exist, keyed by code. */
  findProducts(codes: readonly string[]): Promise<Map<string, ProductRow>>;
}

export function createSqliteProductReadModels(db: LedgerDb): ProductReadModels {
  return {
    async findProduct(code) {
      return db.select().from(products).where(eq(products.code, code)).get() ?? null;
    },
    async findProducts(codes) {
      if (codes.length === 0) return new Map();
      const rows = db.select().from(products).where(inArray(products.code, [...new Set(codes)])).all();
      return new Map(rows.map((row) => [row.code, row]));
    },
  };
}
