import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { TransferStatus } from '../../events/account-import-process.js';
import { formatCents } from '../domain/account-records/money.js';
import { balanceEffectCents } from '../domain/ledger/ledger-transaction.js';

/**
 * Most items each of the view's lists shows: the latest ones. Their `*_count` says how many there are in
 * all (every one is in the account's events, which page), so any account gives a view of bounded size.
 */
export const STATE_LIST_LIMIT = 1_000;

type Note = { body: string | null; created_at: string; is_pinned: boolean; unpin_at: string | null; document_paths: string[] };
type Transaction = { transaction_id: string; type: string; transaction_date: string; amount: string };
type Statement = { statement_id: string; bill_period_from_date: string; bill_period_to_date: string };
type PaymentInstruction = { vendor: string; reference: string; type: string };

/** An account as an auditor sees it at some instant: its events up to then, folded; amounts as the API shows them. */
export interface AccountStateView {
  import_state: 'none' | 'staged' | 'skipped' | 'imported';
  staged_payload: Record<string, unknown> | null;
  stage_count: number;
  platform_account_number: string | null;
  account_created_at: string | null;
  operations_team_name: string | null;
  transfer_status: TransferStatus;
  /** The latest STATE_LIST_LIMIT notes (of `note_count`), oldest first; the same for the lists below. */
  notes: Note[];
  note_count: number;
  transactions: Transaction[];
  transaction_count: number;
  historical_statements: Statement[];
  historical_statement_count: number;
  payment_instructions: PaymentInstruction[];
  payment_instruction_count: number;
  /** What the customer owes: charges, supply charges and repayments raise it; credits and payments lower it. */
  balance: string;
}

/** The latest `STATE_LIST_LIMIT` items appended to it, and how many were appended in all. */
class LatestItems<T> {
  private items: T[] = [];
  count = 0;

  push(item: T): void {
    this.count++;
    this.items.push(item);
    // Trimmed in bulk once it holds twice the limit: amortised constant time per item.
    if (this.items.length >= 2 * STATE_LIST_LIMIT) this.items = this.items.slice(-STATE_LIST_LIMIT);
  }

  latest(): T[] {
    return this.items.slice(-STATE_LIST_LIMIT);
  }
}

/** Folds an account's events, in global order, one at a time into the view: memory holds the view only. */
export class AccountStateFolder {
  private importState: AccountStateView['import_state'] = 'none';
  private stagedPayload: Record<string, unknown> | null = null;
  private stageCount = 0;
  private platformAccountNumber: string | null = null;
  private accountCreatedAt: string | null = null;
  private operationsTeamName: string | null = null;
  private transferStatus: TransferStatus = 'UNKNOWN';
  private balanceCents = 0;
  private readonly notes = new LatestItems<Note>();
  private readonly transactions = new LatestItems<Transaction>();
  private readonly statements = new LatestItems<Statement>();
  private readonly paymentInstructions = new LatestItems<PaymentInstruction>();
  /** The global position of the staging whose payload the view shows (read apart: see `withPayload`). */
  stagedPayloadPosition: number | null = null;

  apply(stored: StoredEvent<LedgerEvent>): void {
    const { event } = stored;
    switch (event.type) {
      case 'AccountStaged':
      case 'AccountRestaged':
        this.importState = 'staged';
        this.stagedPayload = event.data.payload;
        this.stagedPayloadPosition = stored.globalPosition;
        this.stageCount++;
        return;
      case 'AccountMarkedToSkip':
        this.importState = 'skipped';
        return;
      case 'AccountProcessed':
        this.importState = 'imported';
        this.platformAccountNumber = event.data.platformAccountNumber;
        this.accountCreatedAt = event.data.processedAt;
        this.operationsTeamName = event.data.operationsTeamName;
        this.transferStatus = 'PENDING';
        return;
      case 'AccountTransferStatusChanged':
        this.transferStatus = event.data.to;
        return;
      case 'AccountProcessDryRunSucceeded':
      case 'TransactionsDryRunSucceeded':
        // Listed in the history, but a dry run changed nothing of the account.
        return;
      case 'AccountNoteCreated':
        this.notes.push({
          body: event.data.body,
          created_at: event.data.createdAt,
          is_pinned: event.data.isPinned,
          unpin_at: event.data.unpinAt,
          document_paths: [...event.data.documentPaths],
        });
        return;
      case 'LedgerTransactionAdded': {
        const tx = event.data.transaction;
        this.balanceCents += balanceEffectCents(tx.type, tx.amountCents);
        this.transactions.push({ transaction_id: tx.transactionId, type: tx.type, transaction_date: tx.transactionDate, amount: formatCents(tx.amountCents) });
        return;
      }
      case 'HistoricalStatementImported':
        this.statements.push({
          statement_id: event.data.statementId,
          bill_period_from_date: event.data.billPeriodFromDate,
          bill_period_to_date: event.data.billPeriodToDate,
        });
        return;
      case 'PaymentInstructionCreated':
        this.paymentInstructions.push({ vendor: event.data.vendor, reference: event.data.reference, type: event.data.type });
        return;
      default:
        return;
    }
  }

  /** Replaces the staged payload (when the events were folded without their bulk fields). */
  withPayload(payload: Record<string, unknown> | null): void {
    this.stagedPayload = payload;
  }

  view(): AccountStateView {
    return {
      import_state: this.importState,
      staged_payload: this.stagedPayload,
      stage_count: this.stageCount,
      platform_account_number: this.platformAccountNumber,
      account_created_at: this.accountCreatedAt,
      operations_team_name: this.operationsTeamName,
      transfer_status: this.transferStatus,
      notes: this.notes.latest(),
      note_count: this.notes.count,
      transactions: this.transactions.latest(),
      transaction_count: this.transactions.count,
      historical_statements: this.statements.latest(),
      historical_statement_count: this.statements.count,
      payment_instructions: this.paymentInstructions.latest(),
      payment_instruction_count: this.paymentInstructions.count,
      balance: formatCents(this.balanceCents),
    };
  }
}
