import { z } from 'zod';
import { centsToNumber } from '../domain/account-records/money.js';
import { transactionData } from '../domain/ledger/ledger-transaction.js';
import { validateImportTransactionsRequest } from '../domain/ledger/transaction-payload.js';
import { transactionResultStatuses, transactionResults, type TransactionResult } from '../domain/ledger/transaction-results.js';
import { validateImportNotesRequest } from '../domain/notes/note-payload.js';
import { noteResultStatuses, noteStatuses, type NoteResult } from '../domain/notes/note-results.js';
import { validateImportHistoricalStatementsRequest, type ImportHistoricalStatementsRequest } from '../domain/statements/statement-payload.js';
import { ofType, type Answer, type Events } from './answer.js';

/** notes/create/ 201: one item per note of the request, in order. */
export const createNotesResponseSchema = z.array(
  z.object({
    body: z.string().nullable(),
    created_at: z.string(),
    is_pinned: z.boolean(),
    /** Omitted when the note has none (the platform's schema has no null here). */
    unpin_at: z.string().optional(),
    document_paths: z.array(z.object({ document_path: z.string() })),
    status: z.enum(noteStatuses),
  }),
);

/** transactions/create/ 201: one result per transaction of the request, in order. */
export const createTransactionsResponseSchema = z.object({
  results: z.array(z.object({ status: z.enum(transactionResultStatuses), transaction_data: z.record(z.string(), z.unknown()) })),
});

/** historical-statements/create/ 201: the validated data (unknown fields dropped). */
export const createHistoricalStatementsResponseSchema = z.object({
  import_supplier: z.string(),
  external_account_number: z.string(),
  statements: z.array(
    z.object({
      bill_period_from_date: z.string(),
      bill_period_to_date: z.string(),
      statement_id: z.string(),
      issued_date: z.string().nullable().optional(),
      number: z.string().nullable().optional(),
      gross_amount: z.number().nullable().optional(),
      statement_path: z.string().optional(),
    }),
  ),
});

const withoutMillis = (iso: string) => iso.replace(/\.\d+Z$/, 'Z');

export function notesAnswer(results: readonly NoteResult[]): Answer<z.input<typeof createNotesResponseSchema>> {
  return {
    status: 201,
    body: results.map(({ note, createdAt, status }) => ({
      body: note.body ?? null,
      created_at: createdAt,
      is_pinned: note.is_pinned ?? false,
      ...(note.unpin_at === undefined ? {} : { unpin_at: note.unpin_at }),
      document_paths: note.document_paths ?? [],
      status,
    })),
  };
}

/** Each note of the request, created or found; `reservedAt` stands in for the clock when no note was created. */
export function notesAnswerFromEvents(request: unknown, events: Events, reservedAt: string): Answer | null {
  const notes = validateImportNotesRequest(request);
  if (!notes.ok) return null;
  const created = ofType(events, 'AccountNoteCreated').map((stored) => stored.event);
  const statuses = noteResultStatuses(notes.data.notes, created);
  // The server clock the first request stamped notes without created_at with.
  const stamped = created.find((event) => !event.data.createdAtGiven)?.data.createdAt ?? reservedAt;
  return notesAnswer(
    notes.data.notes.map((note, i) => ({ note, createdAt: note.created_at ?? withoutMillis(stamped), status: statuses[i] ?? 'NOTE_ALREADY_EXISTS' })),
  );
}

export function transactionsAnswer(results: readonly TransactionResult[]): Answer<z.input<typeof createTransactionsResponseSchema>> {
  return { status: 201, body: { results: results.map(({ status, transaction }) => ({ status, transaction_data: transactionData(transaction) })) } };
}

export function transactionsAnswerFromEvents(request: unknown, events: Events): Answer | null {
  const transactions = validateImportTransactionsRequest(request);
  if (!transactions.ok) return null;
  // A real import's added transactions, or those its dry run records it would have added.
  const added = [
    ...ofType(events, 'LedgerTransactionAdded').map((stored) => stored.event.data.transaction),
    ...ofType(events, 'TransactionsDryRunSucceeded').flatMap((stored) => stored.event.data.added),
  ];
  return transactionsAnswer(transactionResults(transactions.data.transactions, added));
}

export function historicalStatementsAnswer(request: ImportHistoricalStatementsRequest): Answer<z.input<typeof createHistoricalStatementsResponseSchema>> {
  return {
    status: 201,
    body: {
      import_supplier: request.import_supplier,
      external_account_number: request.external_account_number,
      statements: request.statements.map((statement) => ({ ...statement, gross_amount: centsToNumber(statement.gross_amount) })),
    },
  };
}

/** The statements sent, as validated: nothing of the answer comes from the events. */
export function historicalStatementsAnswerFromRequest(request: unknown): Answer | null {
  const statements = validateImportHistoricalStatementsRequest(request);
  return statements.ok ? historicalStatementsAnswer(statements.data) : null;
}
