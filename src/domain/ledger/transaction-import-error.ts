import { DomainError } from '../errors.js';

export const TRANSACTION_IMPORT_ERROR = 'TRANSACTION_IMPORT_ERROR';
/** A transaction dated before the open statement period, with force_add_to_current_statement=false. */
export const TRANSACTION_NOT_IN_OPEN_STATEMENT_PERIOD = 'transaction_not_in_open_statement_period';
/** A transaction_id the account already has, with check_previously_added=false: it is still never stored twice. */
export const TRANSACTION_ALREADY_ADDED = 'transaction_already_added';

/** The codes a TransactionImportError carries (both in error-codes.ts). */
export type TransactionImportCode = typeof TRANSACTION_NOT_IN_OPEN_STATEMENT_PERIOD | typeof TRANSACTION_ALREADY_ADDED;

/**
 * A business rule of the ledger broke for one transaction of a request (spec
 * 4.10 and 7.4). Answered with the distinct body
 * `{"status": "TRANSACTION_IMPORT_ERROR", "error_detail", "transaction_data", "code"}`
 * (src/answers/errors.ts) naming the first failing transaction; nothing of the
 * request is written.
 */
export class TransactionImportError extends DomainError {
  constructor(
    code: TransactionImportCode,
    detail: string,
    /** The failing transaction as responses show it (ledger-transaction.ts `transactionData`). */
    readonly transactionData: Readonly<Record<string, unknown>>,
    attr: string,
  ) {
    super(code, detail, { attr });
    this.name = 'TransactionImportError';
  }
}
