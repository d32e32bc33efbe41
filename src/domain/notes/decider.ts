import type { AccountNoteCreated } from '../../../events/account-records.js';
import type { LedgerEvent } from '../../../events/registry.js';
import type { Decider } from '../decider.js';
import {
  evolveAccountFacts,
  foldingOnlyOwned,
  initialAccountFacts,
  requireImportedAccount,
  type AccountFacts,
  type AccountFactsEvent,
  type AccountRecordCommandBase,
} from '../account-records/account-stream.js';
import { pathDoesNotExist } from '../account-records/documents.js';
import { assertNever } from '../assert-never.js';
import { DomainError, type FieldError } from '../errors.js';
import {
  addNotes,
  emptyNoteBook,
  ownNoteBook,
  recordNote,
  type NoteBook,
  type NoteDraft,
  type OwnedNoteBook,
} from './note-book.js';
import type { NoteInput } from './note-payload.js';

/** notes/create/ (spec 4.9): the validated notes, in request order. */
export interface ImportNotes extends AccountRecordCommandBase {
  readonly type: 'ImportNotes';
  readonly notes: readonly NoteInput[];
  /** Fact: the document paths of these notes that exist in the supplier's document root. */
  readonly existingDocumentPaths: ReadonlySet<string>;
}

export interface NotesState {
  readonly account: AccountFacts;
  readonly book: NoteBook;
}

export const initialNotesState: NotesState = { account: initialAccountFacts, book: emptyNoteBook };

type NotesFolded = AccountFactsEvent | AccountNoteCreated;

/** The state a fold owns and changes in place (see `ownedEvolution`). */
interface OwnedNotesState extends NotesState {
  account: AccountFacts;
  readonly book: OwnedNoteBook;
}

const own = (state: NotesState): OwnedNotesState => ({ account: state.account, book: ownNoteBook(state.book) });

function step(state: OwnedNotesState, event: NotesFolded): OwnedNotesState {
  switch (event.type) {
    case 'AccountStaged':
    case 'AccountRestaged':
    case 'AccountProcessed':
      state.account = evolveAccountFacts(state.account, event);
      return state;
    case 'AccountNoteCreated':
      recordNote(state.book, event);
      return state;
    default:
      return assertNever(event);
  }
}

export const notesFailedValidation = (errors: readonly FieldError[]) =>
  new DomainError('notes_failed_validation', 'Note data could not be validated.', { errors });

/**
 * The rule that needs facts (the document store): checked once the account is known to be there.
 * `unpin_at` is compared with `created_at` by the payload's own rules, only when both are given, as
 * on the platform: a note without `created_at` keeps whatever `unpin_at` it has.
 */
function factErrors(command: ImportNotes): FieldError[] {
  const errors: FieldError[] = [];
  command.notes.forEach((note, i) => {
    (note.document_paths ?? []).forEach(({ document_path }, j) => {
      if (!command.existingDocumentPaths.has(document_path)) {
        errors.push(pathDoesNotExist(document_path, `notes.${i}.document_paths.${j}.document_path`));
      }
    });
  });
  return errors;
}

export function noteDraft(note: NoteInput): NoteDraft {
  return {
    body: note.body ?? null,
    createdAt: note.created_at ?? null,
    isPinned: note.is_pinned ?? false,
    unpinAt: note.unpin_at ?? null,
    documentPaths: (note.document_paths ?? []).map((d) => d.document_path),
    source: 'import_request',
  };
}

function decide(command: ImportNotes, state: NotesState): AccountNoteCreated[] {
  requireImportedAccount(state.account, command);
  const errors = factErrors(command);
  if (errors.length > 0) throw notesFailedValidation(errors);
  return addNotes(state.book, command.notes.map(noteDraft), command).events;
}

export const notesDecider: Decider<ImportNotes, LedgerEvent, AccountNoteCreated, NotesState> = {
  decide,
  ...foldingOnlyOwned<NotesState, NotesFolded, OwnedNotesState>(
    { AccountStaged: true, AccountRestaged: true, AccountProcessed: true, AccountNoteCreated: true },
    own,
    step,
  ),
  initialState: initialNotesState,
};
