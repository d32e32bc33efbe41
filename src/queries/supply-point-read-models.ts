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
import type { LedgerDb } from '../store/database.js';

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
  /**
   * Requests of one supply type due at `now`, oldest first: pending ones whose
   * retry time (if any) has come, and claimed ones whose lease ran out.
   */
  duePopulateRequests(supplyType: SupplyType, now: string, limit: number): Promise<DuePopulateRequest[]>;
  populateQueueState(supplyType: SupplyType): Promise<PopulateQueueState>;
  findSupplyPoint(supplyType: SupplyType, identifier: string): Promise<SupplyPointRow | null>;
  listSupplyPoints(): Promise<SupplyPointRow[]>;
}

export function createSqliteSupplyPointReadModels(db: LedgerDb): SupplyPointReadModels {
  const r = supplyPointPopulateRequests;
  return {
    async findPopulateBatch(batchId) {
      return db.select().from(supplyPointPopulateBatches).where(eq(supplyPointPopulateBatches.batchId, batchId)).get() ?? null;
    },
    async listPopulateRequests(batchId) {
      return db.select().from(r).where(eq(r.batchId, batchId)).orderBy(asc(r.sequence)).all();
    },
    async duePopulateRequests(supplyType, now, limit) {
      return db
        .select({
          batchId: r.batchId,
          sequence: r.sequence,
          supplyType: r.supplyType,
          identifier: r.identifier,
          customerCategory: supplyPointPopulateBatches.customerCategory,
          status: r.status,
          attempt: r.attempt,
        })
        .from(r)
        .innerJoin(supplyPointPopulateBatches, eq(supplyPointPopulateBatches.batchId, r.batchId))
        .where(
          and(
            eq(r.supplyType, supplyType),
            sql`((${r.status} = 'PENDING' AND (${r.dueAt} IS NULL OR ${r.dueAt} <= ${now}))
              OR (${r.status} = 'CLAIMED' AND ${r.leaseExpiresAt} <= ${now}))`,
          ),
        )
        .orderBy(asc(r.queuePosition))
        .limit(limit)
        .all() as DuePopulateRequest[];
    },
    async populateQueueState(supplyType) {
      const row = db
        .select({
          unfinished: sql<number>`count(*)`,
          // A pending request without a retry time is due at once: '' sorts before any ISO time.
          nextDueAt: sql<string | null>`min(CASE ${r.status} WHEN 'PENDING' THEN coalesce(${r.dueAt}, '') ELSE ${r.leaseExpiresAt} END)`,
        })
        .from(r)
        .where(and(eq(r.supplyType, supplyType), inArray(r.status, ['PENDING', 'CLAIMED'])))
        .get();
      const unfinished = row?.unfinished ?? 0;
      if (unfinished === 0) return { unfinished: 0, nextDueAt: null };
      return { unfinished, nextDueAt: row?.nextDueAt || new Date(0).toISOString() };
    },
    async findSupplyPoint(supplyType, identifier) {
      return (
        db
          .select()
          .from(supplyPoints)
          .where(and(eq(supplyPoints.supplyType, supplyType), eq(supplyPoints.identifier, identifier)))
          .get() ?? null
      );
    },
    async listSupplyPoints() {
      return db.select().from(supplyPoints).orderBy(asc(supplyPoints.supplyType), asc(supplyPoints.identifier)).all();
    },
  };
}
