import { and, eq, inArray } from 'drizzle-orm';
import { businessContracts } from '../../projections/business-contracts.js';
import { businesses, type BusinessRow } from '../../projections/businesses.js';
import { products } from '../../projections/products.js';
import type { LedgerDb } from '../store/database.js';

/** A business contract with the business that holds it. */
export interface BusinessContractLink {
  readonly contractIdentifier: string;
  readonly externalBusinessIdentifier: string;
  readonly platformBusinessId: number;
}

/** Queries over the businesses and business_contracts projections (and product codes, for the contract terms). */
export interface BusinessReadModels {
  findBusiness(importSupplier: string, externalBusinessIdentifier: string): Promise<BusinessRow | null>;
  /** The contract of a business of `importSupplier` with this identifier, or null. */
  findBusinessContract(importSupplier: string, contractIdentifier: string): Promise<BusinessContractLink | null>;
  /** Which of `identifiers` already belong to a business of `importSupplier`. */
  takenContractIdentifiers(importSupplier: string, identifiers: readonly string[]): Promise<string[]>;
  /** Which of `codes` are existing products (read from the products projection). */
  existingProductCodes(codes: readonly string[]): Promise<string[]>;
}

export function createSqliteBusinessReadModels(db: LedgerDb): BusinessReadModels {
  return {
    async findBusiness(importSupplier, externalBusinessIdentifier) {
      return (
        db
          .select()
          .from(businesses)
          .where(and(eq(businesses.importSupplier, importSupplier), eq(businesses.externalBusinessIdentifier, externalBusinessIdentifier)))
          .get() ?? null
      );
    },
    async findBusinessContract(importSupplier, contractIdentifier) {
      return (
        db
          .select({
            contractIdentifier: businessContracts.contractIdentifier,
            externalBusinessIdentifier: businessContracts.externalBusinessIdentifier,
            platformBusinessId: businesses.platformBusinessId,
          })
          .from(businessContracts)
          .innerJoin(
            businesses,
            and(
              eq(businesses.importSupplier, businessContracts.importSupplier),
              eq(businesses.externalBusinessIdentifier, businessContracts.externalBusinessIdentifier),
            ),
          )
          .where(and(eq(businessContracts.importSupplier, importSupplier), eq(businessContracts.contractIdentifier, contractIdentifier)))
          .get() ?? null
      );
    },
    async takenContractIdentifiers(importSupplier, identifiers) {
      return inChunks(identifiers, (chunk) =>
        db
          .select({ identifier: businessContracts.contractIdentifier })
          .from(businessContracts)
          .where(and(eq(businessContracts.importSupplier, importSupplier), inArray(businessContracts.contractIdentifier, chunk)))
          .all()
          .map((row) => row.identifier),
      );
    },
    async existingProductCodes(codes) {
      // Only the codes: the products' rate timelines are not needed here.
      return inChunks(codes, (chunk) =>
        db.select({ code: products.code }).from(products).where(inArray(products.code, chunk)).all().map((row) => row.code),
      );
    },
  };
}

/** Runs an `IN (...)` query over bounded chunks: SQLite caps the number of bound parameters. */
export function inChunks<T>(values: readonly string[], query: (chunk: string[]) => T[], size = 500): T[] {
  const unique = [...new Set(values)];
  const results: T[] = [];
  for (let i = 0; i < unique.length; i += size) results.push(...query(unique.slice(i, i + size)));
  return results;
}
