import { Hono } from 'hono';
import { z } from 'zod';
import { transferStatusSchema } from '../../../events/account-import-process.js';
import type { ImportProcessState } from '../../../projections/account-import-processes.js';
import type { LedgerContext } from '../../application/context.js';
import { specDateTime } from '../../domain/account-import-process/iso-dates.js';
import { DomainError } from '../../domain/errors.js';
import type { AccountListRow, ListPosition } from '../../queries/account-list-read-models.js';
import { keysetChunks } from '../../queries/keyset-chunks.js';
import { requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';
import { listPaging, nextPageLink } from '../list-paging.js';
import { jsonArrayParts, streamedResponse, type StreamTally } from '../streaming.js';

/** GET account-transfer-status/<code>/<ext>/ (spec 4.13). */
export const accountTransferStatusResponseSchema = z.object({
  status: transferStatusSchema,
  platform_account_number: z.string(),
});

/** One item of the three list endpoints (spec 2.7). */
export const importProcessListItemSchema = z.object({
  external_account_number: z.string(),
  platform_account_number: z.string().nullable(),
  account_created_at: z.string().nullable(),
});
export const accountImportProcessListResponseSchema = z.array(importProcessListItemSchema);

function listItem(row: AccountListRow): z.infer<typeof importProcessListItemSchema> {
  return {
    external_account_number: row.externalAccountNumber,
    platform_account_number: row.platformAccountNumber,
    account_created_at: row.accountCreatedAt === null ? null : specDateTime(row.accountCreatedAt),
  };
}

/**
 * Which projection state each list shows. "all" is every account that was
 * staged (null: every state), including ones an operator marked to skip;
 * "pending" is staged and neither processed nor skipped.
 */
const listStates: Readonly<Record<'all' | 'pending' | 'imported', ImportProcessState | null>> = {
  all: null,
  pending: 'STAGED',
  imported: 'IMPORTED',
};

export function accountStatusRoutes(ctx: LedgerContext) {
  const app = new Hono<AppEnv>().get('/account-transfer-status/:supplier/:ext/', async (c) => {
    const supplier = c.req.param('supplier');
    const ext = c.req.param('ext');
    requireSupplierScope(c, supplier);
    const row = await ctx.read.findAccountImportProcess(supplier, ext);
    if (!row) throw new DomainError('account_not_found', `No account import process found for ${supplier} / ${ext}.`);
    return c.json({
      status: row.state === 'IMPORTED' ? row.transferStatus : 'UNKNOWN',
      platform_account_number: row.platformAccountNumber ?? '',
    });
  });
  // The full list streams in constant memory, whatever its length (the spec's answer, unchanged); `?limit=`
  // and `?after=` page it, the next page announced in a Link header (docs/lists-and-reconciliation.md).
  for (const list of ['all', 'pending', 'imported'] as const) {
    app.get(`/${list}-account-import-processes/:supplier/`, async (c) => {
      const supplier = c.req.param('supplier');
      requireSupplierScope(c, supplier);
      const paging = listPaging(c);
      const state = listStates[list];
      let through: ListPosition | null = null;
      if (paging.limit !== null) {
        through = await ctx.read.accountListPageEnd(supplier, state, paging.after, paging.limit);
        if (through) c.header('Link', nextPageLink(c, paging.limit, through));
      }
      const chunks = keysetChunks((range, limit) => ctx.read.accountListChunk(supplier, state, range, limit), {
        range: { after: paging.after, through },
        ...(paging.limit !== null ? { maxRows: paging.limit } : {}),
      });
      const tally: StreamTally = { items: 0 };
      return streamedResponse(c, 'application/json', jsonArrayParts(chunks, listItem, tally), tally);
    });
  }
  return app;
}
