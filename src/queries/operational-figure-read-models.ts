import { and, asc, eq, inArray, isNotNull, ne, sql, type SQL } from 'drizzle-orm';
import { accountImportStatusTable } from '../../projections/account-import-statuses.js';
import { customerEmails } from '../../projections/customer-emails.js';
import { importProgressCountsTable } from '../../projections/import-progress-tallies.js';
import { importSuppliers } from '../../projections/import-suppliers.js';
import { supplyPointPopulateRequests } from '../../projections/supply-points-populate-requests.js';
import type { ProjectionQueries } from '../store/projection-queries.js';

/** The background queues an operator watches (docs/operations.md "Metrics"). */
export interface WorkQueueFigures {
  /** Supply point requests per operator (supply type): waiting, claimed by a worker, given up on. */
  readonly supplyPointRequests: readonly { readonly supplyType: 'ELECTRICITY' | 'GAS'; readonly pending: number; readonly inFlight: number; readonly errored: number }[];
  /** The customer-email outbox: waiting (queued or being sent), and failed for good. */
  readonly welcomeEmails: { readonly queued: number; readonly sending: number; readonly failed: number };
  /** v2 scheduled account creations: waiting for their window (or a retry), and running (claimed). */
  readonly scheduledCreations: { readonly waiting: number; readonly running: number };
}

/** One import supplier's accounts, as the business figures count them. */
export interface SupplierFigures {
  readonly importSupplier: string;
  /** Seen and neither imported nor skipped, as the progress endpoint counts them. */
  readonly pending: number;
  readonly imported: number;
  /** Not imported, whose latest stage or process attempt was refused (a part of `pending`). */
  readonly failing: number;
}

/** Counts over the projections for the metrics endpoint: each one an index range (see each query). */
export interface OperationalFigureReadModels {
  workQueueFigures(): Promise<WorkQueueFigures>;
  /** The first `limit` suppliers by code, with their figures. */
  supplierFigures(limit: number): Promise<SupplierFigures[]>;
}

export function createOperationalFigureReadModels(q: ProjectionQueries): OperationalFigureReadModels {
  const r = supplyPointPopulateRequests;
  const e = customerEmails;
  const s = accountImportStatusTable;
  const count = async (from: SQL): Promise<number> => Number((await q.select({ n: sql<number>`count(*)` }, from))[0]?.n ?? 0);
  // Each count is one range of an index: (supply_type, status, ...), (status, queue_position), due_at,
  // (import_supplier, state, ...), and the primary key (import_supplier, external_account_number).
  const requests = (supplyType: 'ELECTRICITY' | 'GAS', status: 'PENDING' | 'CLAIMED' | 'ERRORED') =>
    count(sql`FROM ${r} WHERE ${and(eq(r.supplyType, supplyType), eq(r.status, status))}`);
  const emails = (status: 'QUEUED' | 'SENDING' | 'FAILED') => count(sql`FROM ${e} WHERE ${eq(e.status, status)}`);
  return {
    async workQueueFigures() {
      const supplyPointRequests = await Promise.all(
        (['ELECTRICITY', 'GAS'] as const).map(async (supplyType) => ({
          supplyType,
          pending: await requests(supplyType, 'PENDING'),
          inFlight: await requests(supplyType, 'CLAIMED'),
          errored: await requests(supplyType, 'ERRORED'),
        })),
      );
      return {
        supplyPointRequests,
        welcomeEmails: { queued: await emails('QUEUED'), sending: await emails('SENDING'), failed: await emails('FAILED') },
        scheduledCreations: {
          waiting: await count(sql`FROM ${s} WHERE ${and(isNotNull(s.dueAt), ne(s.status, 'IN_PROGRESS'))}`),
          running: await count(sql`FROM ${s} WHERE ${and(isNotNull(s.dueAt), eq(s.status, 'IN_PROGRESS'))}`),
        },
      };
    },
    async supplierFigures(limit) {
      // One row a supplier, kept by the import_progress_counts tally: constant time whatever the cohort.
      const suppliers = await q.list(importSuppliers, { orderBy: [asc(importSuppliers.code)], limit });
      const codes = suppliers.map(({ code }) => code);
      const rows = codes.length === 0 ? [] : await q.list(importProgressCountsTable, { where: inArray(importProgressCountsTable.importSupplier, codes) });
      const byCode = new Map(rows.map((row) => [row.importSupplier, row]));
      return codes.map((code) => {
        const row = byCode.get(code);
        return { importSupplier: code, pending: row?.pending ?? 0, imported: row?.imported ?? 0, failing: row?.failing ?? 0 };
      });
    },
  };
}
