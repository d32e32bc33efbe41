import type {
  AccountNoteCreated,
  HistoricalStatementImported,
  LedgerTransactionAdded,
} from '../../../events/account-records.js';
import type { LedgerEvent } from '../../../events/registry.js';
import type { Decider } from '../decider.js';
import {
  accountOf,
  accountRecordsEvolution,
  initialAccountFacts,
  requireImportedAccount,
  type AccountRecordsState,
  type AccountRecordCommandBase,
} from '../account-records/account-stream.js';
import { DomainError, type FieldError } from '../errors.js';
import { addNotes, emptyNoteBook, ownNoteBook, recordNote, type NoteBook, type OwnedNoteBook } from '../notes/note-book.js';
import { ledgerTransaction } from './ledger-transaction.js';
import { laterDate, openPeriodStart } from './statement-period.js';
import { TransactionImportError } from './transaction-import-error.js';
import type { TransactionInput } from './transaction-payload.js';

/** transactions/create/ (spec 4.10): the validated transactions, in request order, and the query options. */
export interface ImportTransactions extends AccountRecordCommandBase {
  readonly type: 'ImportTransactions';
  readonly transactions: readonly TransactionInput[];
  readonly checkPreviouslyAdded: boolean;
  readonly forceAddToCurrentStatement: boolean;
  /** Fact: the product codes named by these SUPPLY_CHARGEs that exist in the catalogue. */
  readonly existingProductCodes: ReadonlySet<string>;
}

export type LedgerState = AccountRecordsState<{
  readonly transactionIds: ReadonlySet<string>;
  readonly latestStatementEnd: string | null;
  /** The account's notes: the pinned note about moved transactions follows the notes' uniqueness rule too. */
  readonly notes: NoteBook;
}>;

const ledgerEvolution = accountRecordsEvolution<
  LedgerState,
  LedgerTransactionAdded | HistoricalStatementImported | AccountNoteCreated,
  { readonly transactionIds: Set<string>; latestStatementEnd: string | null; readonly notes: OwnedNoteBook }
>((state) => ({ ...state, transactionIds: new Set(state.transactionIds), notes: ownNoteBook(state.notes) }), {
  LedgerTransactionAdded: (state, event) => state.transactionIds.add(event.data.transaction.transactionId),
  HistoricalStatementImported: (state, event) => {
    state.latestStatementEnd = laterDate(state.latestStatementEnd, event.data.billPeriodToDate);
  },
  AccountNoteCreated: (state, event) => recordNote(state.notes, event),
});

export const transactionsFailedValidation = (errors: readonly FieldError[]) =>
  new DomainError('transactions_failed_validation', 'Transaction data could not be validated.', { errors });

/** Rules that need facts (the clock, the product catalogue): checked once the account is known to be there. */
function factErrors(command: ImportTransactions): FieldError[] {
  const today = command.now.slice(0, 10);
  const errors: FieldError[] = [];
  command.transactions.forEach((tx, i) => {
    if (tx.transaction_date > today) {
      errors.push({ detail: `The transaction date ${tx.transaction_date} is in the future.`, code: 'transaction_in_future', attr: `transactions.${i}.transaction_date` });
    }
    if (tx.type === 'SUPPLY_CHARGE' && !command.existingProductCodes.has(tx.product_code)) {
      errors.push({ detail: `Product ${tx.product_code} does not exist.`, code: 'product_code_does_not_exist', attr: `transactions.${i}.product_code` });
    }
  });
  return errors;
}

function movedTransactionsNote(periodStart: string, moved: readonly TransactionInput[]): string {
  const list = moved.map((tx) => `${tx.transaction_id} (dated ${tx.transaction_date})`).join(', ');
  return `Imported transactions dated before the open statement period were moved to its first day, ${periodStart}: ${list}.`;
}

function decide(command: ImportTransactions, state: LedgerState): (LedgerTransactionAdded | AccountNoteCreated)[] {
  requireImportedAccount(state.account, command);
  const errors = factErrors(command);
  if (errors.length > 0) throw transactionsFailedValidation(errors);

  const periodStart = openPeriodStart(state.account.lastBilledToDate, state.latestStatementEnd);
  const added: LedgerTransactionAdded[] = [];
  const moved: TransactionInput[] = [];
  command.transactions.forEach((tx, i) => {
    if (state.transactionIds.has(tx.transaction_id)) {
      if (command.checkPreviouslyAdded) return; // TRANSACTION_ALREADY_EXISTS: skipped
      throw new TransactionImportError(
        'transaction_already_added',
        `Transaction ${tx.transaction_id} was already added to account ${command.externalAccountNumber}; a transaction is never added twice.`,
        tx,
        `transactions.${i}.transaction_id`,
      );
    }
    const outside = periodStart !== null && tx.transaction_date < periodStart;
    if (outside && !command.forceAddToCurrentStatement) {
      throw new TransactionImportError(
        'transaction_not_in_open_statement_period',
        `Unable to create transaction ${tx.transaction_id}: its date ${tx.transaction_date} is not within the open statement period, which starts ${periodStart}.`,
        tx,
        `transactions.${i}.transaction_date`,
      );
    }
    if (outside) moved.push(tx);
    added.push({
      type: 'LedgerTransactionAdded',
      version: 1,
      data: { ...accountOf(command), transaction: ledgerTransaction(tx, outside && periodStart ? { to: periodStart } : null), addedAt: command.now },
    });
  });
  if (moved.length === 0 || periodStart === null) return added;
  const note = addNotes(
    state.notes,
    [{ body: movedTransactionsNote(periodStart, moved), createdAt: null, isPinned: true, unpinAt: null, documentPaths: [], source: 'transaction_import' }],
    command,
  );
  return [...added, ...note.events];
}

export const ledgerDecider: Decider<ImportTransactions, LedgerEvent, LedgerTransactionAdded | AccountNoteCreated, LedgerState> = {
  decide,
  ...ledgerEvolution,
  initialState: { account: initialAccountFacts, transactionIds: new Set(), latestStatementEnd: null, notes: emptyNoteBook },
};
