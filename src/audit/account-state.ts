import type { StoredEvent } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { TransferStatus } from '../../events/account-import-process.js';
import { formatCents } from '../domain/account-records/money.js';
import { balanceEffectCents } from '../domain/ledger/ledger-transaction.js';

/**
 * An account as an auditor sees it at some instant: what the events of its
 * stream recorded up to then, folded. A read-side view (the deciders keep
 * their own, smaller states); amounts are shown as the API shows them.
 */
export interface AccountStateView {
  import_state: 'none' | 'staged' | 'skipped' | 'imported';
  staged_payload: Record<string, unknown> | null;
  stage_count: number;
  platform_account_number: string | null;
  account_created_at: string | null;
  operations_team_name: string | null;
  transfer_status: TransferStatus;
  notes: { body: string | null; created_at: string; is_pinned: boolean; unpin_at: string | null; document_paths: string[] }[];
  transactions: { transaction_id: string; type: string; transaction_date: string; amount: string }[];
  historical_statements: { statement_id: string; bill_period_from_date: string; bill_period_to_date: string }[];
  payment_instructions: { vendor: string; reference: string; type: string }[];
  /** What the customer owes: charges, supply charges and repayments raise it; credits and payments lower it. */
  balance: string;
}

export const emptyAccountState = (): AccountStateView => ({
  import_state: 'none',
  staged_payload: null,
  stage_count: 0,
  platform_account_number: null,
  account_created_at: null,
  operations_team_name: null,
  transfer_status: 'UNKNOWN',
  notes: [],
  transactions: [],
  historical_statements: [],
  payment_instructions: [],
  balance: '0.00',
});

/** Folds one stored event into the view; events the view does not show leave it unchanged. */
export function foldAccountState(state: AccountStateView, stored: StoredEvent<LedgerEvent>, balanceCents: { value: number }): AccountStateView {
  const { event } = stored;
  switch (event.type) {
    case 'AccountStaged':
    case 'AccountRestaged':
      return { ...state, import_state: 'staged', staged_payload: event.data.payload, stage_count: state.stage_count + 1 };
    case 'AccountMarkedToSkip':
      return { ...state, import_state: 'skipped' };
    case 'AccountProcessed':
      return {
        ...state,
        import_state: 'imported',
        platform_account_number: event.data.platformAccountNumber,
        account_created_at: event.data.processedAt,
        operations_team_name: event.data.operationsTeamName,
        transfer_status: 'PENDING',
      };
    case 'AccountTransferStatusChanged':
      return { ...state, transfer_status: event.data.to };
    case 'AccountProcessDryRunSucceeded':
      // Listed in the history, but a dry run changed nothing of the account.
      return state;
    case 'AccountNoteCreated':
      return {
        ...state,
        notes: [
          ...state.notes,
          {
            body: event.data.body,
            created_at: event.data.createdAt,
            is_pinned: event.data.isPinned,
            unpin_at: event.data.unpinAt,
            document_paths: [...event.data.documentPaths],
          },
        ],
      };
    case 'LedgerTransactionAdded': {
      const tx = event.data.transaction;
      balanceCents.value += balanceEffectCents(tx.type, tx.amountCents);
      return {
        ...state,
        transactions: [
          ...state.transactions,
          { transaction_id: tx.transactionId, type: tx.type, transaction_date: tx.transactionDate, amount: formatCents(tx.amountCents) },
        ],
        balance: formatCents(balanceCents.value),
      };
    }
    case 'HistoricalStatementImported':
      return {
        ...state,
        historical_statements: [
          ...state.historical_statements,
          { statement_id: event.data.statementId, bill_period_from_date: event.data.billPeriodFromDate, bill_period_to_date: event.data.billPeriodToDate },
        ],
      };
    case 'PaymentInstructionCreated':
      return {
        ...state,
        payment_instructions: [...state.payment_instructions, { vendor: event.data.vendor, reference: event.data.reference, type: event.data.type }],
      };
    default:
      return state;
  }
}

/** The view folded from the events recorded up to and including `asOf` (an ISO instant). */
export function accountStateAsOf(events: readonly StoredEvent<LedgerEvent>[], asOf: Date): { state: AccountStateView; events: StoredEvent<LedgerEvent>[] } {
  const cutoff = asOf.getTime();
  const included = events.filter((stored) => Date.parse(stored.recordedAt) <= cutoff);
  const balance = { value: 0 };
  const state = included.reduce((s, stored) => foldAccountState(s, stored, balance), emptyAccountState());
  return { state, events: included };
}
