import type { LedgerTransaction } from '../../../events/account-records.js';

export const transactionResultStatuses = ['TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ALREADY_EXISTS'] as const;
export type TransactionResultStatus = (typeof transactionResultStatuses)[number];

/** What transactions/create/ reports for each transaction of the request. */
export interface TransactionResult {
  readonly status: TransactionResultStatus;
  /** As recorded (moved date and description included) when added; as sent when it already existed. */
  readonly transaction: LedgerTransaction;
}
