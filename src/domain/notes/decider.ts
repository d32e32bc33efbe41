import type { AccountNoteCreated } from '../../../events/account-records.js';
import type { LedgerEvent } from '../../../events/registry.js';
import type { Decider } from '../decider.js';
import {
  accountRecordsEvolution,
  initialAccountFacts,
  requireImportedAccount,
  type AccountRecordsState,
  type AccountRecordCommandBase,
} from '../account-records/account-stream.js';
import { pathDoesNotExist } from '../account-records/documents.js';
import { DomainError, type FieldError } from '../errors.js';
import { addNotes, emptyNoteBook, noteDraft, ownNoteBook, recordNote, type NoteBook, type OwnedNoteBook } from './note-book.js';
import type { NoteInput } from './note-payload.js';

/** notes/create/ (spec 4.9): the validated notes, in request order. */
export interface ImportNotes extends AccountRecordCommandBase {
  readonly type: 'ImportNotes';
  readonly notes: readonly NoteInput[];
  /** Fact: the document paths of these notes that exist in the supplier's document root. */
  readonly existingDocumentPaths: ReadonlySet<string>;
}

export type NotesState = AccountRecordsState<{ readonly book: NoteBook }>;

const notesEvolution = accountRecordsEvolution<NotesState, AccountNoteCreated, { readonly book: OwnedNoteBook }>(
  (state) => ({ account: state.account, book: ownNoteBook(state.book) }),
  { AccountNoteCreated: (state, event) => recordNote(state.book, event) },
);

export const notesFailedValidation = (errors: readonly FieldError[]) =>
  new DomainError('notes_failed_validation', 'Note data could not be validated.', { errors });

/**
 * The rule that needs facts (the document store), checked once the account is known to be there. `unpin_at`
 * is compared with `created_at` by the payload's rules, only when both are given, as on the platform.
 */
function factErrors(command: ImportNotes): FieldError[] {
  return command.notes.flatMap((note, i) =>
    (note.document_paths ?? []).flatMap(({ document_path }, j) =>
      command.existingDocumentPaths.has(document_path) ? [] : [pathDoesNotExist(document_path, `notes.${i}.document_paths.${j}.document_path`)],
    ),
  );
}

function decide(command: ImportNotes, state: NotesState): AccountNoteCreated[] {
  requireImportedAccount(state.account, command);
  const errors = factErrors(command);
  if (errors.length > 0) throw notesFailedValidation(errors);
  return addNotes(state.book, command.notes.map((note) => noteDraft(note, 'import_request')), command).events;
}

export const notesDecider: Decider<ImportNotes, LedgerEvent, AccountNoteCreated, NotesState> = {
  decide,
  ...notesEvolution,
  initialState: { account: initialAccountFacts, book: emptyNoteBook },
};
