import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import type { TransactionsDryRunSucceeded } from '../../events/account-process-dry-run.js';
import { ledgerDecider } from '../domain/ledger/decider.js';
import type { ImportTransactionsRequest } from '../domain/ledger/transaction-payload.js';
import { transactionResults, type TransactionResult } from '../domain/ledger/transaction-results.js';
import { appendDryRunRecord } from './account-import-processes.js';
import { supplierFacts } from './account-record-facts.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';

export interface TransactionImportOptions {
  readonly checkPreviouslyAdded: boolean;
  readonly forceAddToCurrentStatement: boolean;
}

/**
 * Adds financial transactions to an imported account's ledger (spec 4.10): the new transactions (and the
 * pinned note about moved ones) in one transaction, or nothing when any fails. The product codes are
 * facts read before (products are never removed); the supplier's status is guarded. A dry run writes the
 * same unit and rolls it back, so every rule applies, then records what it would have added.
 */
export async function importTransactions(
  ctx: LedgerContext,
  request: ImportTransactionsRequest,
  options: TransactionImportOptions,
  actor: Actor,
): Promise<TransactionResult[]> {
  const run = await withRetry(async () => {
    const supplier = await supplierFacts(ctx, request.import_supplier);
    const productCodes = request.transactions.flatMap((tx) => (tx.type === 'SUPPLY_CHARGE' ? [tx.product_code] : []));
    const products = await ctx.read.findProducts(productCodes);
    const result = await handle(
      ctx,
      actor,
      ledgerDecider,
      accountImportProcessStreamId(request.import_supplier, request.external_account_number),
      {
        type: 'ImportTransactions',
        importSupplier: request.import_supplier,
        externalAccountNumber: request.external_account_number,
        supplierStatus: supplier.status,
        transactions: request.transactions,
        checkPreviouslyAdded: options.checkPreviouslyAdded,
        forceAddToCurrentStatement: options.forceAddToCurrentStatement,
        existingProductCodes: new Set(products.keys()),
      },
      { guards: supplier.guards, dryRun: request.dry_run },
    );
    const added = result.events.flatMap(({ event }) => (event.type === 'LedgerTransactionAdded' ? [event.data.transaction] : []));
    return { added, envelope: result.envelope, accountStreamVersion: result.streamVersion - result.events.length };
  });
  if (request.dry_run) {
    const record: TransactionsDryRunSucceeded = {
      type: 'TransactionsDryRunSucceeded',
      version: 1,
      data: {
        importSupplier: request.import_supplier,
        externalAccountNumber: request.external_account_number,
        added: run.added,
        accountStreamVersion: run.accountStreamVersion,
        ranAt: run.envelope.now.toISOString(),
      },
    };
    await appendDryRunRecord(ctx, actor, record, run.envelope);
  }
  return transactionResults(request.transactions, run.added);
}
