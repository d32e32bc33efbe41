import { Hono } from 'hono';
import { z } from 'zod';
import type { LedgerContext } from '../../application/context.js';
import { DomainError } from '../../domain/errors.js';
import { accountRecordsLine, accountRecordsParts, groupRecords } from '../../export/account-records-export.js';
import { keysetChunks } from '../../queries/keyset-chunks.js';
import { requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';
import { parseQuery } from '../query.js';
import { streamedResponse, type StreamTally } from '../streaming.js';

export const accountRecordsQuerySchema = z.object({ include: z.enum(['records']).optional() });

/**
 * Accounts a chunk of the export holds: each brings its records (some ten rows) and their digests, about ten
 * times a list row's work, so the lists' 1,000 held the event loop 40-70 ms a chunk, and every request waited.
 */
export const RECORDS_CHUNK_ACCOUNTS = 100;

/**
 * GET account-records/<supplier>/ (beyond the spec): per account, the digest of its records, streamed in
 * the lists' order as the reconciliation export is (one bounded read per chunk of accounts, whatever the
 * supplier's size); `?include=records` adds the records. GET account-record/<supplier>/<ext>/ (a path of its own: `account-records/<supplier>/./` is the export's): one
 * account's line with its records, what `import-ledger verify` asks for where the digests differ.
 * Scoped to the token's suppliers (docs/migrate.md "Verify").
 */
export function accountRecordsExportRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>()
    .get('/account-records/:supplier/', async (c) => {
      const supplier = c.req.param('supplier');
      requireSupplierScope(c, supplier);
      const { include } = parseQuery(c, accountRecordsQuerySchema);
      const chunks = keysetChunks((range, limit) => ctx.read.reconciliationChunk(supplier, range, limit), {
        range: { after: null, through: null },
        chunkRows: RECORDS_CHUNK_ACCOUNTS,
      });
      const tally: StreamTally = { items: 0 };
      const parts = accountRecordsParts(chunks, (accounts) => ctx.read.accountRecordsOf(supplier, accounts), include === 'records', tally);
      return streamedResponse(c, 'application/x-ndjson', parts, tally);
    })
    .get('/account-record/:supplier/:ext/', async (c) => {
      const supplier = c.req.param('supplier');
      const ext = c.req.param('ext');
      requireSupplierScope(c, supplier);
      const row = await ctx.read.findAccountImportProcess(supplier, ext);
      if (!row) throw new DomainError('account_not_found', `No account import process found for ${supplier} / ${ext}.`);
      const [records, ledger] = await Promise.all([ctx.read.accountRecordsOf(supplier, [ext]), ctx.read.accountLedger(supplier, ext)]);
      const line = accountRecordsLine(
        { externalAccountNumber: ext, state: row.state, platformAccountNumber: row.platformAccountNumber, balanceCents: ledger.balanceCents },
        groupRecords(records).get(ext),
        true,
      );
      return c.json(line, 200);
    });
}
