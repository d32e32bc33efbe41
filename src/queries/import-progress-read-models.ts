import { and, asc, desc, eq, gte, inArray, isNotNull, lt, sql, type SQL } from 'drizzle-orm';
import { accountImportProgressTable, type AccountImportProgressRow } from '../../projections/account-import-progress.js';
import { importSuppliers, type ImportSupplierRow } from '../../projections/import-suppliers.js';
import {
  importFailureSummaryTable,
  importProgressCountsTable,
  type ImportFailureSummaryRow,
  type ImportProgressCountsRow,
} from '../../projections/import-progress-tallies.js';
import { importActivityTable, importThroughputTable, type ImportActivityRow, type ImportThroughputRow } from '../../projections/import-throughput.js';
import type { ProjectionQueries } from '../store/projection-queries.js';

/** Which failures a page of the failures list shows. */
export interface FailurePageQuery {
  /** Only accounts whose latest refusal has this code (top-level or an item's). */
  readonly code: string | null;
  /** Only failures older than this one (the last of the previous page), in the list's newest-first order. */
  readonly beforePosition: number | null;
  readonly limit: number;
}

/**
 * Queries over a migration's progress projections: each reads one row, or
 * one bounded range of an index, whatever the number of accounts.
 */
export interface ImportProgressReadModels {
  /** The suppliers among `codes` (a key's scope), by code. */
  listImportSuppliersIn(codes: readonly string[]): Promise<ImportSupplierRow[]>;
  importProgressCounts(importSupplier: string): Promise<ImportProgressCountsRow | null>;
  importActivity(importSupplier: string): Promise<ImportActivityRow | null>;
  /** The per-minute imports from `fromMinute` on (at most the minutes between it and now). */
  importThroughputSince(importSupplier: string, fromMinute: string): Promise<ImportThroughputRow[]>;
  /** Failing accounts, newest failure first: at most `limit`. */
  importFailuresPage(importSupplier: string, query: FailurePageQuery): Promise<AccountImportProgressRow[]>;
  /** Failure counts per code and path, most accounts first: at most `limit`. */
  importFailureSummary(importSupplier: string, limit: number): Promise<ImportFailureSummaryRow[]>;
}

/** `%` and `_` are LIKE wildcards: a code holding one is matched literally (`\` escapes, named so on SQLite). */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export function createImportProgressReadModels(q: ProjectionQueries): ImportProgressReadModels {
  const p = accountImportProgressTable;
  const s = importFailureSummaryTable;
  return {
    listImportSuppliersIn: async (codes) =>
      codes.length === 0 ? [] : q.list(importSuppliers, { where: inArray(importSuppliers.code, [...codes]), orderBy: [asc(importSuppliers.code)] }),
    importProgressCounts: (importSupplier) => q.one(importProgressCountsTable, eq(importProgressCountsTable.importSupplier, importSupplier)),
    importActivity: (importSupplier) => q.one(importActivityTable, eq(importActivityTable.importSupplier, importSupplier)),
    importThroughputSince: (importSupplier, fromMinute) =>
      q.list(importThroughputTable, {
        where: and(eq(importThroughputTable.importSupplier, importSupplier), gte(importThroughputTable.minute, fromMinute)),
        orderBy: [asc(importThroughputTable.minute)],
        limit: 120,
      }),
    importFailuresPage: (importSupplier, query) => {
      const where: SQL[] = [eq(p.importSupplier, importSupplier), isNotNull(p.failedPosition)];
      if (query.beforePosition !== null) where.push(lt(p.failedPosition, query.beforePosition));
      if (query.code !== null) where.push(sql`${p.failureCodes} LIKE ${`% ${likeLiteral(query.code)} %`} ESCAPE '\\'`);
      return q.list(p, { where: and(...where)!, orderBy: [desc(p.failedPosition)], limit: query.limit });
    },
    importFailureSummary: (importSupplier, limit) =>
      q.list(s, { where: eq(s.importSupplier, importSupplier), orderBy: [desc(s.accounts), asc(s.code), asc(s.attr)], limit }),
  };
}
