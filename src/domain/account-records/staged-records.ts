import type { AccountNoteCreated, HistoricalStatementImported } from '../../../events/account-records.js';
import type { AccountPayload } from '../account-import-process/account-payload.js';
import { addNotes, emptyNoteBook, type NoteDraft } from '../notes/note-book.js';

export type StagedRecordEvent = AccountNoteCreated | HistoricalStatementImported;

/**
 * What the staged payload brings at process time, recorded in the
 * same transaction as AccountProcessed: its `notes` become notes under the
 * notes' uniqueness rule (a repeated note is created once), its `statements`
 * historical statements (a repeated statement_id is recorded once, the first
 * wins); both count for the open statement period. Their document paths are
 * recorded as given: processing does not fail on a document missing from the
 * store (docs/account-records.md).
 */
export function stagedPayloadRecords(
  payload: AccountPayload,
  account: { readonly importSupplier: string; readonly externalAccountNumber: string; readonly now: string },
): StagedRecordEvent[] {
  const drafts: NoteDraft[] = (payload.notes ?? []).map((note) => ({
    body: note.body ?? null,
    createdAt: note.created_at ?? null,
    isPinned: false,
    unpinAt: null,
    documentPaths: (note.document_paths ?? []).map((d) => d.document_path),
    source: 'staged_payload',
  }));
  const notes = addNotes(emptyNoteBook, drafts, account).events;
  const seen = new Set<string>();
  const statements: HistoricalStatementImported[] = [];
  for (const statement of payload.statements ?? []) {
    if (seen.has(statement.statement_id)) continue;
    seen.add(statement.statement_id);
    statements.push({
      type: 'HistoricalStatementImported',
      version: 1,
      data: {
        importSupplier: account.importSupplier,
        externalAccountNumber: account.externalAccountNumber,
        statementId: statement.statement_id,
        billPeriodFromDate: statement.bill_period_from_date,
        billPeriodToDate: statement.bill_period_to_date,
        issuedDate: null,
        number: null,
        grossAmountCents: null,
        statementPath: statement.statement_path,
        source: 'staged_payload',
        importedAt: account.now,
      },
    });
  }
  return [...notes, ...statements];
}
