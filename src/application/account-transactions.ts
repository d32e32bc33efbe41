import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import type { LedgerTransaction } from '../../events/account-records.js';
import { ledgerDecider } from '../domain/ledger/decider.js';
import { ledgerTransaction } from '../domain/ledger/ledger-transaction.js';
import type { ImportTransactionsRequest } from '../domain/ledger/transaction-payload.js';
import { supplierFacts } from './account-record-facts.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';

export const transactionResultStatuses = ['TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ALREADY_EXISTS'] as const;
export type TransactionResultStatus = (typeof transactionResultStatuses)[number];

export interface TransactionResult {
  readonly status: TransactionResultStatus;
  /** As recorded (moved date and description included) when added; as sent when it already existed. */
  readonly transaction: LedgerTransaction;
}

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
 */
export async function importTransactions(
  ctx: LedgerContext,
  request: ImportTransactionsRequest,
  options: TransactionImportOptions,
  actor: Actor,
): Promise<TransactionResult[]> {
  return withRetry(async () => {
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
      { guards: supplier.guards },
    );
    const added = new Map<string, LedgerTransaction>();
    for (const { event } of result.events) {
      if (event.type === 'LedgerTransactionAdded') added.set(event.data.transaction.transactionId, event.data.transaction);
    }
    return request.transactions.map((tx) => {
      const recorded = added.get(tx.transaction_id);
      return recorded
        ? { status: 'TRANSACTION_ADDED_TO_ACCOUNT', transaction: recorded }
        : { status: 'TRANSACTION_ALREADY_EXISTS', transaction: ledgerTransaction(tx) };
    });
  });
}
