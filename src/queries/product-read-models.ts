import { eq, inArray, sql } from 'drizzle-orm';
import { products, type ProductRow } from '../../projections/products.js';
import type { ProjectionQueries } from '../store/projection-queries.js';

/** Queries over the products projection (the shared catalogue). */
export interface ProductReadModels {
  findProduct(code: string): Promise<ProductRow | null>;
  /** The products among `codes` that exist, keyed by code. */
  findProducts(codes: readonly string[]): Promise<Map<string, ProductRow>>;
  /** The market of each product among `codes` that exists (no rates read: what account checks need). */
  productMarkets(codes: readonly string[]): Promise<Map<string, ProductRow['marketName']>>;
  existingProductCodes(codes: readonly string[]): Promise<string[]>;
}

/** Most product codes one market lookup asks for. */
const MARKET_CODES = 16;
/** Most product markets kept in memory (a catalogue is far smaller; past it they are forgotten and asked again). */
const KNOWN_MARKETS = 10_000;

export function createProductReadModels(q: ProjectionQueries): ProductReadModels {
  // Prepared once: these run on every account validation.
  const byCode = q.prepareOne(products, eq(products.code, sql.placeholder('code')));
  // One statement for an account's codes (a round trip each is what costs on PostgreSQL), prepared once per
  // number of codes; more than MARKET_CODES at a time go in several.
  const marketsByArity = new Map<number, (params: Record<string, unknown>) => Promise<{ code: string; marketName: ProductRow['marketName'] }[]>>();
  const marketsOf = (codes: readonly string[]) => {
    let query = marketsByArity.get(codes.length);
    if (!query) {
      const placeholders = codes.map((_, i) => sql.placeholder(`c${i}`));
      query = q.prepareSelect({ code: products.code, marketName: products.marketName }, sql`FROM ${products} WHERE ${inArray(products.code, placeholders)}`);
      marketsByArity.set(codes.length, query);
    }
    return query(Object.fromEntries(codes.map((code, i) => [`c${i}`, code])));
  };
  // A product's market is fixed when it is created (no event changes it, none removes a product): once
  // seen, it is known for good, on every instance. Only codes not seen yet are asked of the database.
  const knownMarkets = new Map<string, ProductRow['marketName']>();
  const productMarkets = async (codes: readonly string[]) => {
    const found = new Map<string, ProductRow['marketName']>();
    const distinct: string[] = [];
    for (const code of new Set(codes)) {
      const market = knownMarkets.get(code);
      if (market) found.set(code, market);
      else distinct.push(code);
    }
    for (let i = 0; i < distinct.length; i += MARKET_CODES) {
      for (const row of await marketsOf(distinct.slice(i, i + MARKET_CODES))) {
        found.set(row.code, row.marketName);
        if (knownMarkets.size >= KNOWN_MARKETS) knownMarkets.clear();
        knownMarkets.set(row.code, row.marketName);
      }
    }
    return found;
  };
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
    existingProductCodes: async (codes) => [...(await productMarkets(codes)).keys()],
    productMarkets,
  };
}
