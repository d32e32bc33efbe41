import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { businessContracts } from '../../projections/business-contracts.js';
import { businesses, type BusinessRow } from '../../projections/businesses.js';
import type { ProjectionQueries } from '../store/projection-queries.js';

/** A business contract with the business that holds it. */
export interface BusinessContractLink {
  readonly contractIdentifier: string;
  readonly externalBusinessIdentifier: string;
  readonly platformBusinessId: number;
}

export interface BusinessReadModels {
  findBusiness(importSupplier: string, externalBusinessIdentifier: string): Promise<BusinessRow | null>;
  /** The contract of a business of `importSupplier` with this identifier, or null. */
  findBusinessContract(importSupplier: string, contractIdentifier: string): Promise<BusinessContractLink | null>;
  /** The contracts of a business, by identifier (the business's index). */
  listBusinessContracts(importSupplier: string, externalBusinessIdentifier: string): Promise<{ contractIdentifier: string; validFromDate: string | null }[]>;
  /** Which of `identifiers` already belong to a business of `importSupplier`. */
  takenContractIdentifiers(importSupplier: string, identifiers: readonly string[]): Promise<string[]>;
}

/** A table's rows of one business (its primary key's prefix). */
export const ofBusiness = (table: { importSupplier: AnySQLiteColumn; externalBusinessIdentifier: AnySQLiteColumn }, importSupplier: string, identifier: string): SQL =>
  and(eq(table.importSupplier, importSupplier), eq(table.externalBusinessIdentifier, identifier))!;

export function createBusinessReadModels(q: ProjectionQueries): BusinessReadModels {
  const c = businessContracts;
  return {
    findBusiness: (importSupplier, externalBusinessIdentifier) =>
      q.one(businesses, ofBusiness(businesses, importSupplier, externalBusinessIdentifier)),
    async findBusinessContract(importSupplier, contractIdentifier) {
      const [link] = await q.select(
        { contractIdentifier: c.contractIdentifier, externalBusinessIdentifier: c.externalBusinessIdentifier, platformBusinessId: businesses.platformBusinessId },
        sql`FROM ${c} INNER JOIN ${businesses}
              ON ${businesses.importSupplier} = ${c.importSupplier} AND ${businesses.externalBusinessIdentifier} = ${c.externalBusinessIdentifier}
            WHERE ${and(eq(c.importSupplier, importSupplier), eq(c.contractIdentifier, contractIdentifier))} LIMIT 1`,
      );
      return link ?? null;
    },
    listBusinessContracts: (importSupplier, externalBusinessIdentifier) =>
      q.select(
        { contractIdentifier: c.contractIdentifier, validFromDate: c.validFromDate },
        sql`FROM ${c} WHERE ${ofBusiness(c, importSupplier, externalBusinessIdentifier)} ORDER BY ${c.contractIdentifier}`,
      ),
    takenContractIdentifiers: (importSupplier, identifiers) =>
      inChunks(identifiers, async (chunk) =>
        (await q.select({ identifier: c.contractIdentifier }, sql`FROM ${c} WHERE ${and(eq(c.importSupplier, importSupplier), inArray(c.contractIdentifier, chunk))}`)).map(
          (row) => row.identifier,
        ),
      ),
  };
}

/** Runs an `IN (...)` query over bounded chunks: databases cap the number of bound parameters. */
export async function inChunks<T>(values: readonly string[], query: (chunk: string[]) => Promise<T[]>, size = 500): Promise<T[]> {
  const unique = [...new Set(values)];
  const results: T[] = [];
  for (let i = 0; i < unique.length; i += size) results.push(...(await query(unique.slice(i, i + size))));
  return results;
}
