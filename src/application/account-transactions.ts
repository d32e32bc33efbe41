import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { accountProcessDryRunStreamId, type TransactionsDryRunSucceeded } from '../../events/account-process-dry-run.js';
import { ledgerDecider } from '../domain/ledger/decider.js';
import type { ImportTransactionsRequest } from '../domain/ledger/transaction-payload.js';
import { transactionResults, type TransactionResult } from '../domain/ledger/transaction-results.js';
import { supplierFacts } from './account-record-facts.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';

export interface TransactionImportOptions {
  readonly checkPreviouslyAdded: boolean;
  readonly forceAddToCurrentStatement: boolean;
}

/**
 * Adds financial transactions to an imported account's ledger (spec 4.10).
 * Atomic: the request's new transactions (and the pinned note about moved
 * ones) are appended in one transaction, or nothing is when any transaction
 * fails. The product codes are looked up before the command (a fact:
 * products are never removed); the supplier's status is guarded.
 *
 * A dry run (`dry_run: true`) decides and writes the same unit and rolls it back, as the process dry run
 * does, so every rule of a real import applies and the answer is the one it would give; then it records
 * what it would have added on the account's dry-run audit stream (`TransactionsDryRunSucceeded`).
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
    const streamId = accountProcessDryRunStreamId(request.import_supplier, request.external_account_number);
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
    await withRetry(async () => ctx.store.appendToStream(streamId, await ctx.store.streamVersion(streamId), [record], run.envelope.write));
  }
  return transactionResults(request.transactions, run.added);
}
