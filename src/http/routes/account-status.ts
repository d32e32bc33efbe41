import { Hono } from 'hono';
import { z } from 'zod';
import { transferStatusSchema } from '../../../events/account-import-process.js';
import type { AccountImportProcessRow, ImportProcessState } from '../../../projections/account-import-processes.js';
import type { LedgerContext } from '../../application/context.js';
import { DomainError } from '../../domain/errors.js';
import { requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';

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
export const allAccountImportProcessesResponseSchema = z.array(importProcessListItemSchema);
export const pendingAccountImportProcessesResponseSchema = z.array(importProcessListItemSchema);
export const importedAccountImportProcessesResponseSchema = z.array(importProcessListItemSchema);

function listItem(row: AccountImportProcessRow): z.infer<typeof importProcessListItemSchema> {
  return {
    external_account_number: row.externalAccountNumber,
    platform_account_number: row.platformAccountNumber,
    account_created_at: row.accountCreatedAt === null ? null : specDateTime(row.accountCreatedAt),
  };
}

/** Spec 2.1 writes datetimes as YYYY-MM-DDTHH:MM:SSZ; the log keeps milliseconds, responses do not. */
export function specDateTime(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}

/**
 * Which projection states each list shows. "all" is every account that was
 * staged, including ones an operator marked to skip; "pending" is staged and
 * neither processed nor skipped.
 */
const listStates: Readonly<Record<'all' | 'pending' | 'imported', readonly ImportProcessState[]>> = {
  all: ['STAGED', 'SKIPPED', 'IMPORTED'],
  pending: ['STAGED'],
  imported: ['IMPORTED'],
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
  for (const list of ['all', 'pending', 'imported'] as const) {
    app.get(`/${list}-account-import-processes/:supplier/`, async (c) => {
      const supplier = c.req.param('supplier');
      requireSupplierScope(c, supplier);
      const rows = await ctx.read.listAccountImportProcesses(supplier, listStates[list]);
      return c.json(rows.map(listItem));
    });
  }
  return app;
}
