import { and, asc, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import { customerEmails, type CustomerEmailRow, type CustomerEmailStatusName } from '../../projections/customer-emails.js';
import type { ProjectionQueries } from '../store/projection-queries.js';

/** What is left in the outbox: emails not ended yet, and when the next one becomes due. */
export interface CustomerEmailQueueState {
  readonly queued: number;
  readonly sending: number;
  /** ISO time; null when nothing is queued. A time in the past means "due now". */
  readonly nextDueAt: string | null;
}

export interface CustomerEmailFilter {
  readonly importSupplier?: string;
  readonly externalAccountNumber?: string;
  readonly status?: CustomerEmailStatusName;
  /** Only emails queued after this queue position (the global position of their queuing event). */
  readonly afterQueuePosition?: number;
  readonly limit?: number;
}

export interface CustomerEmailReadModels {
  /** Emails due at `now` (queued and retry time come, or sending and claim run out), oldest first. */
  dueCustomerEmails(now: string, limit: number): Promise<CustomerEmailRow[]>;
  customerEmailQueueState(): Promise<CustomerEmailQueueState>;
  /** Emails in queue order, optionally of one account or one status. */
  listCustomerEmails(filter?: CustomerEmailFilter): Promise<CustomerEmailRow[]>;
}

export function createCustomerEmailReadModels(q: ProjectionQueries): CustomerEmailReadModels {
  const e = customerEmails;
  return {
    dueCustomerEmails: (now, limit) =>
      q.list(e, {
        where: sql`((${e.status} = 'QUEUED' AND (${e.dueAt} IS NULL OR ${e.dueAt} <= ${now}))
            OR (${e.status} = 'SENDING' AND ${e.leaseExpiresAt} <= ${now}))`,
        orderBy: [asc(e.queuePosition)],
        limit,
      }),
    async customerEmailQueueState() {
      // The unfinished part of the outbox is small (sent and failed emails are left out).
      const rows = await q.select(
        { status: e.status, dueAt: e.dueAt, leaseExpiresAt: e.leaseExpiresAt, queuedAt: e.queuedAt },
        sql`FROM ${e} WHERE ${inArray(e.status, ['QUEUED', 'SENDING'])}`,
      );
      const dueTimes = rows.map((row) => (row.status === 'QUEUED' ? (row.dueAt ?? row.queuedAt) : (row.leaseExpiresAt ?? row.queuedAt)));
      return {
        queued: rows.filter((row) => row.status === 'QUEUED').length,
        sending: rows.filter((row) => row.status === 'SENDING').length,
        nextDueAt: dueTimes.length === 0 ? null : dueTimes.reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a)),
      };
    },
    listCustomerEmails(filter = {}) {
      const conditions: SQL[] = [];
      if (filter.importSupplier !== undefined) conditions.push(eq(e.importSupplier, filter.importSupplier));
      if (filter.externalAccountNumber !== undefined) conditions.push(eq(e.externalAccountNumber, filter.externalAccountNumber));
      if (filter.status !== undefined) conditions.push(eq(e.status, filter.status));
      if (filter.afterQueuePosition !== undefined) conditions.push(gt(e.queuePosition, filter.afterQueuePosition));
      return q.list(e, { where: and(...conditions), orderBy: [asc(e.queuePosition)], limit: filter.limit });
    },
  };
}
