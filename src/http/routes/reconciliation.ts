import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { LedgerContext } from '../../application/context.js';
import { reconciliationContentTypes, reconciliationParts, reconciliationFormats, type ReconciliationFormat } from '../../export/reconciliation-export.js';
import { keysetChunks } from '../../queries/keyset-chunks.js';
import { requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';
import { parseQuery } from '../query.js';
import { streamedResponse, type StreamTally } from '../streaming.js';

export const reconciliationQuerySchema = z.object({ format: z.enum(reconciliationFormats).optional() });

/**
 * `?format=csv|ndjson` when given (anything else is a 400); otherwise CSV when
 * the Accept header names `text/csv`, NDJSON for any other Accept.
 */
function exportFormat(c: Context<AppEnv>): ReconciliationFormat {
  const { format } = parseQuery(c, reconciliationQuerySchema);
  if (format !== undefined) return format;
  return /(^|[\s,])text\/csv\b/i.test(c.req.header('accept') ?? '') ? 'csv' : 'ndjson';
}

/**
 * GET reconciliation/<import_supplier_code>/ (beyond the spec): the cut-over
 * check, one record per account of the supplier, streamed as the lists are
 * (docs/lists-and-reconciliation.md "The reconciliation export"). Scoped to the token's suppliers.
 */
export function reconciliationRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>().get('/reconciliation/:supplier/', async (c) => {
    const supplier = c.req.param('supplier');
    requireSupplierScope(c, supplier);
    const format = exportFormat(c);
    const chunks = keysetChunks((range, limit) => ctx.read.reconciliationChunk(supplier, range, limit), { range: { after: null, through: null } });
    const tally: StreamTally = { items: 0 };
    c.header('Vary', 'Accept');
    c.header('Content-Disposition', `attachment; filename="reconciliation-${supplier}.${format}"`);
    return streamedResponse(c, reconciliationContentTypes[format], reconciliationParts(format, chunks, tally), tally);
  });
}
