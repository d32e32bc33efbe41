import type { AccountNoteCreated, HistoricalStatementImported } from '../../../events/account-records.js';
import type { AccountPayload } from '../account-import-process/account-payload.js';
import { addNotes, emptyNoteBook, noteDraft } from '../notes/note-book.js';
import { statementImported } from '../statements/decider.js';
import type { AccountRef } from './account-stream.js';

export type StagedRecordEvent = AccountNoteCreated | HistoricalStatementImported;

/**
 * What the staged payload brings at process time, recorded with AccountProcessed: its `notes` become notes
 * under the notes' uniqueness rule, its `statements` historical statements (a repeated statement_id is
 * recorded once, the first wins). Document paths are recorded as given: processing does not fail on a
 * document missing from the store (docs/account-records.md).
 */
export function stagedPayloadRecords(payload: AccountPayload, account: AccountRef): StagedRecordEvent[] {
  const drafts = (payload.notes ?? []).map((note) => noteDraft(note, 'staged_payload'));
  const notes = addNotes(emptyNoteBook, drafts, account).events;
  const seen = new Set<string>();
  const statements: HistoricalStatementImported[] = [];
  for (const statement of payload.statements ?? []) {
    if (seen.has(statement.statement_id)) continue;
    seen.add(statement.statement_id);
    statements.push(statementImported(account, statement, 'staged_payload'));
  }
  return [...notes, ...statements];
}
