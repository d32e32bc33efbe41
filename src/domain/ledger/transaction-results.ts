import type { LedgerTransaction } from '../../../events/account-records.js';
import { ledgerTransaction } from './ledger-transaction.js';
import type { ImportTransactionsRequest } from './transaction-payload.js';

export const transactionResultStatuses = ['TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ALREADY_EXISTS'] as const;
export type TransactionResultStatus = (typeof transactionResultStatuses)[number];

/** What transactions/create/ reports for each transaction of the request. */
export interface TransactionResult {
  readonly status: TransactionResultStatus;
  /** As recorded (moved date and description included) when added; as sent when it already existed. */
  readonly transaction: LedgerTransaction;
}

/** Each requested transaction's result, in request order. */
export function transactionResults(requested: ImportTransactionsRequest['transactions'], added: readonly LedgerTransaction[]): TransactionResult[] {
  const byId = new Map(added.map((transaction) => [transaction.transactionId, transaction]));
  return requested.map((tx) => {
    const recorded = byId.get(tx.transaction_id);
    return recorded
      ? { status: 'TRANSACTION_ADDED_TO_ACCOUNT', transaction: recorded }
      : { status: 'TRANSACTION_ALREADY_EXISTS', transaction: ledgerTransaction(tx) };
  });
}
