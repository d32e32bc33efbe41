import { Hono } from 'hono';
import { z } from 'zod';
import { accountImportOperations } from '../../../events/import-attempt.js';
import { verificationCountsSchema } from '../../../events/import-supplier.js';
import { failureSteps, type AccountImportProgressRow } from '../../../projections/account-import-progress.js';
import type { LedgerContext } from '../../application/context.js';
import { specDateTime } from '../../domain/account-import-process/iso-dates.js';
import { DomainError } from '../../domain/errors.js';
import { requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';
import { parseQuery, queryCursor, queryInteger } from '../query.js';

/** GET import-suppliers/: the suppliers of the caller's key. */
export const importSupplierItemSchema = z.object({ import_supplier: z.string(), status: z.enum(['Ongoing', 'Paused', 'Complete']) });
export const importSuppliersResponseSchema = z.array(importSupplierItemSchema);

const countsSchema = z.object({
  pending: z.int(),
  imported: z.int(),
  skipped: z.int(),
  failing: z.int(),
  total: z.int(),
});

/** GET import-progress/<code>/. */
export const importProgressResponseSchema = z.object({
  import_supplier: z.string(),
  status: z.enum(['Ongoing', 'Paused', 'Complete']),
  accounts: countsSchema,
  transfer_status: z.object({ PENDING: z.int(), IN_PROGRESS: z.int(), REJECTED: z.int(), COMPLETED: z.int() }),
  imports_per_minute: z.array(z.object({ minute: z.string(), count: z.int() })),
  first_staged_at: z.string().nullable(),
  last_activity_at: z.string().nullable(),
  /** The event feed's last position when this was read: a live reader follows the feed from there. */
  feed_position: z.int(),
  /** The last `import-ledger verify` of the supplier (POST verifications/): when, by which key, whether the two agreed, its counts, the service compared (null: not said); null: never. */
  last_verification: z
    .object({
      verified_at: z.string(),
      verified_by: z.string(),
      agree: z.boolean(),
      summary: z.record(z.string(), verificationCountsSchema),
      service_id: z.string().nullable(),
    })
    .nullable(),
});

/** One failing account of GET import-failures/<code>/. */
export const importFailureItemSchema = z.object({
  external_account_number: z.string(),
  step: z.enum(failureSteps),
  operation: z.enum(accountImportOperations),
  code: z.string(),
  errors: z.array(z.object({ code: z.string(), attr: z.string().nullable() })),
  failed_at: z.string(),
});
export const importFailuresResponseSchema = z.array(importFailureItemSchema);

/** GET import-failures/<code>/summary/. */
export const importFailureSummaryResponseSchema = z.array(z.object({ code: z.string(), attr: z.string().nullable(), accounts: z.int() }));

/** Default and largest page of the failures list and the summary: each page is one bounded index range. */
export const DEFAULT_FAILURES_LIMIT = 100;
export const MAX_FAILURES_LIMIT = 1_000;
/** The error codes are snake_case words; `?code=` takes nothing else (it is matched inside a stored list). */
const CODE = /^[a-z0-9_]{1,100}$/;
const MINUTES = 60;

/** The failures list's cursor: opaque, the base64url of the last failure's position (newest first, so the next page is older). */
const encodeCursor = (position: number) => Buffer.from(`f${position}`, 'utf8').toString('base64url');
const FAILURES_CURSOR = /^[A-Za-z0-9_-]{1,40}$/;
function decodeCursor(cursor: string): number | null {
  if (!FAILURES_CURSOR.test(cursor)) return null;
  const match = /^f(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
}

const failuresLimit = queryInteger(1, MAX_FAILURES_LIMIT).default(DEFAULT_FAILURES_LIMIT).describe(`At most this many (default ${DEFAULT_FAILURES_LIMIT}).`);
export const importFailuresQuerySchema = z.object({
  limit: failuresLimit,
  after: queryCursor(FAILURES_CURSOR, decodeCursor).optional(),
  code: z.string().regex(CODE, 'code must be an error code (lower-case letters, digits and _).').optional().describe('Only the accounts whose latest refusal has this error code (top-level or an item\'s).'),
});
export const importFailureSummaryQuerySchema = z.object({ limit: failuresLimit });

function failureItem(row: AccountImportProgressRow): z.infer<typeof importFailureItemSchema> {
  return {
    external_account_number: row.externalAccountNumber,
    step: row.failureStep ?? 'process',
    operation: row.failureOperation ?? 'process',
    code: row.failureCode ?? '',
    errors: (row.failureErrors ?? []).map((e) => ({ code: e.code, attr: e.attr })),
    failed_at: specDateTime(row.failedAt ?? ''),
  };
}

/** The UTC minutes of the hour ending with `now`'s, oldest first (`2026-11-23T12:04:00Z`). */
function lastHour(now: Date): string[] {
  const end = Math.floor(now.getTime() / 60_000) * 60_000;
  return Array.from({ length: MINUTES }, (_, i) => new Date(end - (MINUTES - 1 - i) * 60_000).toISOString().slice(0, 16));
}

/**
 * A migration's progress (beyond the spec): every answer reads one
 * projection row or one bounded index range (the tallies, the hour's
 * throughput), so it costs the same for ten accounts or a million.
 */
export function importProgressRoutes(ctx: LedgerContext) {
  const supplierOf = async (code: string) => {
    const supplier = await ctx.read.findImportSupplier(code);
    // A key is scoped to suppliers that exist; answered like any supplier out of scope all the same.
    if (!supplier) throw new DomainError('permission_denied', 'You do not have permission to perform this action.');
    return supplier;
  };
  return new Hono<AppEnv>()
    .get('/import-suppliers/', async (c) => {
      const rows = await ctx.read.listImportSuppliersIn(c.get('principal').suppliers);
      return c.json(rows.map((row) => ({ import_supplier: row.code, status: row.status })));
    })
    .get('/import-progress/:supplier/', async (c) => {
      const code = c.req.param('supplier');
      requireSupplierScope(c, code);
      const minutes = lastHour(ctx.clock());
      // The feed's position first: what the counts include is then at least what the feed has shown up to it.
      const feedPosition = await ctx.read.feedHead();
      const [supplier, counts, activity, throughput] = await Promise.all([
        supplierOf(code),
        ctx.read.importProgressCounts(code),
        ctx.read.importActivity(code),
        ctx.read.importThroughputSince(code, minutes[0]!),
      ]);
      const perMinute = new Map(throughput.map((row) => [row.minute, row.imports]));
      const body: z.infer<typeof importProgressResponseSchema> = {
        import_supplier: supplier.code,
        status: supplier.status,
        accounts: {
          pending: counts?.pending ?? 0,
          imported: counts?.imported ?? 0,
          skipped: counts?.skipped ?? 0,
          failing: counts?.failing ?? 0,
          total: counts?.total ?? 0,
        },
        transfer_status: {
          PENDING: counts?.transferPending ?? 0,
          IN_PROGRESS: counts?.transferInProgress ?? 0,
          REJECTED: counts?.transferRejected ?? 0,
          COMPLETED: counts?.transferCompleted ?? 0,
        },
        imports_per_minute: minutes.map((minute) => ({ minute: `${minute}:00Z`, count: perMinute.get(minute) ?? 0 })),
        first_staged_at: activity?.firstStagedAt ? specDateTime(activity.firstStagedAt) : null,
        last_activity_at: activity ? specDateTime(activity.lastActivityAt) : null,
        feed_position: feedPosition,
        last_verification:
          supplier.lastVerifiedAt && supplier.lastVerification
            ? {
                verified_at: specDateTime(supplier.lastVerifiedAt),
                verified_by: supplier.lastVerifiedBy ?? '',
                agree: supplier.lastVerification.agree,
                summary: supplier.lastVerification.summary,
                // A row projected before verifications named their service has none.
                service_id: supplier.lastVerification.serviceId ?? null,
              }
            : null,
      };
      return c.json(body);
    })
    .get('/import-failures/:supplier/summary/', async (c) => {
      const code = c.req.param('supplier');
      requireSupplierScope(c, code);
      const { limit } = parseQuery(c, importFailureSummaryQuerySchema);
      await supplierOf(code);
      const rows = await ctx.read.importFailureSummary(code, limit);
      return c.json(rows.map((row) => ({ code: row.code, attr: row.attr === '' ? null : row.attr, accounts: row.accounts })));
    })
    .get('/import-failures/:supplier/', async (c) => {
      const code = c.req.param('supplier');
      requireSupplierScope(c, code);
      const query = parseQuery(c, importFailuresQuerySchema);
      const { limit } = query;
      const beforePosition = query.after ?? null;
      const codeFilter = query.code ?? null;
      await supplierOf(code);
      // One more than the page: the next page's link only when there is one.
      const rows = await ctx.read.importFailuresPage(code, { code: codeFilter, beforePosition, limit: limit + 1 });
      const page = rows.slice(0, limit);
      if (rows.length > limit) {
        const last = page[page.length - 1]!;
        const params = new URLSearchParams({ limit: String(limit), ...(codeFilter !== null ? { code: codeFilter } : {}), after: encodeCursor(last.failedPosition!) });
        c.header('Link', `<${new URL(c.req.url).pathname}?${params.toString()}>; rel="next"`);
      }
      return c.json(page.map(failureItem));
    });
}
