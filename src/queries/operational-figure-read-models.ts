import { and, asc, eq, isNotNull, ne, sql, type SQL } from 'drizzle-orm';
import { accountImportProcesses } from '../../projections/account-import-processes.js';
import { accountImportStatusTable } from '../../projections/account-import-statuses.js';
import { customerEmails } from '../../projections/customer-emails.js';
import { importSuppliers } from '../../projections/import-suppliers.js';
import { supplyPointPopulateRequests } from '../../projections/supply-points-populate-requests.js';
import type { ProjectionQueries } from '../store/projection-queries.js';

/** The background queues an operator watches (README "Metrics"). */
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
  /** Staged, not yet imported nor skipped (the pending list). */
  readonly pending: number;
  /** Imported (the imported list). */
  readonly imported: number;
  /** Whose v2 status is ERRORED: the latest creation attempt failed and nothing has succeeded since. */
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
  const p = accountImportProcesses;
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
      const suppliers = await q.list(importSuppliers, { orderBy: [asc(importSuppliers.code)], limit });
      const figures: SupplierFigures[] = [];
      for (const { code } of suppliers) {
        figures.push({
          importSupplier: code,
          pending: await count(sql`FROM ${p} WHERE ${and(eq(p.importSupplier, code), eq(p.state, 'STAGED'))}`),
          imported: await count(sql`FROM ${p} WHERE ${and(eq(p.importSupplier, code), eq(p.state, 'IMPORTED'))}`),
          failing: await count(sql`FROM ${s} WHERE ${and(eq(s.importSupplier, code), eq(s.status, 'ERRORED'))}`),
        });
      }
      return figures;
    },
  };
}
