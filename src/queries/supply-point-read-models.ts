import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { supplyPoints, type SupplyPointRow } from '../../projections/supply-points.js';
import {
  supplyPointPopulateBatches,
  type SupplyPointPopulateBatchRow,
} from '../../projections/supply-points-populate-batches.js';
import {
  supplyPointPopulateRequests,
  type SupplyPointPopulateRequestRow,
} from '../../projections/supply-points-populate-requests.js';
import type { SupplyType } from '../domain/account-import-process/identifiers.js';
import type { ProjectionQueries } from '../store/projection-queries.js';

/** A request the worker may take now, with the batch's customer category. */
export interface DuePopulateRequest {
  readonly batchId: string;
  readonly sequence: number;
  readonly supplyType: SupplyType;
  readonly identifier: string;
  readonly customerCategory: string;
  readonly status: 'PENDING' | 'CLAIMED';
  readonly attempt: number;
}

/** What is left for one operator: requests not ended yet, and the earliest time one of them becomes due. */
export interface PopulateQueueState {
  readonly unfinished: number;
  /** ISO time; null when nothing is left. A time in the past means "due now". */
  readonly nextDueAt: string | null;
}

/** Queries over the supply point projections: the populate queue, batch status and stored supply points. */
export interface SupplyPointReadModels {
  findPopulateBatch(batchId: string): Promise<SupplyPointPopulateBatchRow | null>;
  /** Every request of a batch, in sequence order. */
  listPopulateRequests(batchId: string): Promise<SupplyPointPopulateRequestRow[]>;
  /** Requests of one supply type due at `now` (pending and retry time come, or claimed and lease run out), oldest first. */
  duePopulateRequests(supplyType: SupplyType, now: string, limit: number): Promise<DuePopulateRequest[]>;
  populateQueueState(supplyType: SupplyType): Promise<PopulateQueueState>;
  findSupplyPoint(supplyType: SupplyType, identifier: string): Promise<SupplyPointRow | null>;
  listSupplyPoints(): Promise<SupplyPointRow[]>;
}

export function createSupplyPointReadModels(q: ProjectionQueries): SupplyPointReadModels {
  const r = supplyPointPopulateRequests;
  const b = supplyPointPopulateBatches;
  return {
    findPopulateBatch: (batchId) => q.one(b, eq(b.batchId, batchId)),
    listPopulateRequests: (batchId) => q.list(r, { where: eq(r.batchId, batchId), orderBy: [asc(r.sequence)] }),
    async duePopulateRequests(supplyType, now, limit) {
      const rows = await q.select(
        {
          batchId: r.batchId,
          sequence: r.sequence,
          supplyType: r.supplyType,
          identifier: r.identifier,
          customerCategory: b.customerCategory,
          status: r.status,
          attempt: r.attempt,
        },
        sql`FROM ${r} INNER JOIN ${b} ON ${b.batchId} = ${r.batchId}
            WHERE ${r.supplyType} = ${supplyType}
              AND ((${r.status} = 'PENDING' AND (${r.dueAt} IS NULL OR ${r.dueAt} <= ${now}))
                OR (${r.status} = 'CLAIMED' AND ${r.leaseExpiresAt} <= ${now}))
            ORDER BY ${r.queuePosition} LIMIT ${limit}`,
      );
      // The WHERE clause keeps only pending and claimed requests.
      return rows as DuePopulateRequest[];
    },
    async populateQueueState(supplyType) {
      const [row] = await q.select(
        {
          unfinished: sql<number>`count(*)`,
          // A pending request without a retry time is due at once: '' sorts before any ISO time.
          nextDueAt: sql<string | null>`min(CASE ${r.status} WHEN 'PENDING' THEN coalesce(${r.dueAt}, '') ELSE ${r.leaseExpiresAt} END)`,
        },
        sql`FROM ${r} WHERE ${and(eq(r.supplyType, supplyType), inArray(r.status, ['PENDING', 'CLAIMED']))}`,
      );
      const unfinished = Number(row?.unfinished ?? 0);
      if (unfinished === 0) return { unfinished: 0, nextDueAt: null };
      return { unfinished, nextDueAt: row?.nextDueAt || new Date(0).toISOString() };
    },
    findSupplyPoint: (supplyType, identifier) =>
      q.one(supplyPoints, and(eq(supplyPoints.supplyType, supplyType), eq(supplyPoints.identifier, identifier))!),
    listSupplyPoints: () => q.list(supplyPoints, { orderBy: [asc(supplyPoints.supplyType), asc(supplyPoints.identifier)] }),
  };
}
