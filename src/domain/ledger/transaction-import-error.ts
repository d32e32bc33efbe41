import { DomainError } from '../errors.js';
import { ledgerTransaction, transactionData } from './ledger-transaction.js';
import type { TransactionInput } from './transaction-payload.js';

export const TRANSACTION_IMPORT_ERROR = 'TRANSACTION_IMPORT_ERROR';

/**
 * A ledger rule broke for one transaction of a request (spec 4.10, 7.4): answered with the distinct body
 * `{"status": "TRANSACTION_IMPORT_ERROR", "error_detail", "transaction_data", "code"}` naming the first
 * failing transaction; nothing of the request is written.
 */
export class TransactionImportError extends DomainError {
  /** The failing transaction as responses show it. */
  readonly transactionData: Readonly<Record<string, unknown>>;

  constructor(code: 'transaction_not_in_open_statement_period' | 'transaction_already_added', detail: string, transaction: TransactionInput, attr: string) {
    super(code, detail, { attr });
    this.name = 'TransactionImportError';
    this.transactionData = transactionData(ledgerTransaction(transaction));
  }
}
