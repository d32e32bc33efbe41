import { and, asc, isNotNull, lte } from 'drizzle-orm';
import { accountImportStatusTable, type AccountImportStatusRow } from '../../projections/account-import-statuses.js';
import type { ProjectionQueries } from '../store/projection-queries.js';
import { ofAccount } from './account-list-read-models.js';

/** Queries over the v2 status projection: the status endpoint and the scheduler's queue. */
export interface AccountImportStatusReadModels {
  findAccountImportStatus(importSupplier: string, externalAccountNumber: string): Promise<AccountImportStatusRow | null>;
  /** Scheduled creations due at `now` (window open, or claim run out), soonest first: one range of the `due_at` index. */
  dueAccountCreations(now: string, limit: number): Promise<AccountImportStatusRow[]>;
}

export function createAccountImportStatusReadModels(q: ProjectionQueries): AccountImportStatusReadModels {
  const t = accountImportStatusTable;
  return {
    findAccountImportStatus: (importSupplier, externalAccountNumber) => q.one(t, ofAccount(t, importSupplier, externalAccountNumber)),
    dueAccountCreations: (now, limit) => q.list(t, { where: and(isNotNull(t.dueAt), lte(t.dueAt, now)), orderBy: [asc(t.dueAt)], limit }),
  };
}
