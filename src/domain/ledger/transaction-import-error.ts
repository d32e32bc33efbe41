import { DomainError } from '../errors.js';

export const TRANSACTION_IMPORT_ERROR = 'TRANSACTION_IMPORT_ERROR';
/** A transaction dated before the open statement period, with force_add_to_current_statement=false. */
export const TRANSACTION_NOT_IN_OPEN_STATEMENT_PERIOD = 'transaction_not_in_open_statement_period';
/** A transaction_id the account already has, with check_previously_added=false: it is still never stored twice. */
export const TRANSACTION_ALREADY_ADDED = 'transaction_already_added';

/**
 * A ledger rule broke for one transaction of a request (spec 4.10, 7.4): answered with the distinct body
 * `{"status": "TRANSACTION_IMPORT_ERROR", "error_detail", "transaction_data", "code"}` naming the first
 * failing transaction; nothing of the request is written.
 */
export class TransactionImportError extends DomainError {
  constructor(
    code: typeof TRANSACTION_NOT_IN_OPEN_STATEMENT_PERIOD | typeof TRANSACTION_ALREADY_ADDED,
    detail: string,
    /** The failing transaction as responses show it (ledger-transaction.ts `transactionData`). */
    readonly transactionData: Readonly<Record<string, unknown>>,
    attr: string,
  ) {
    super(code, detail, { attr });
    this.name = 'TransactionImportError';
  }
}
