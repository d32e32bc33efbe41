import type { AccountNoteCreated, RecordSource } from '../../../events/account-records.js';
import { accountOf, type AccountRef } from '../account-records/account-stream.js';
import { specDateTime } from '../account-import-process/iso-dates.js';
import { hasBody, instantOf, type NoteInput } from './note-payload.js';

/**
 * The account's notes as far as the uniqueness rule needs them (spec 4.9.4): a note is created only when the
 * account has no note of the same content (its body, else its document paths) and, when the new note gives
 * a created_at, the same instant.
 */
export interface NoteBook {
  /** How many notes the account has: the next note gets `count + 1` as its sequence. */
  readonly count: number;
  /** Content key -> the instants (ms) of the account's notes with that content. */
  readonly instantsByContent: ReadonlyMap<string, readonly number[]>;
}

/** A NoteBook a fold owns: its map and lists may be changed in place (see `ownedEvolution`). */
export interface OwnedNoteBook extends NoteBook {
  count: number;
  readonly instantsByContent: Map<string, number[]>;
}

export const emptyNoteBook: NoteBook = { count: 0, instantsByContent: new Map() };

export function contentKey(body: string | null, documentPaths: readonly string[]): string {
  return hasBody(body) ? `body:${body}` : `documents:${JSON.stringify(documentPaths)}`;
}

/** A note to add, before the uniqueness rule: `createdAt` null means "now" (the caller gave none). */
export type NoteDraft = Readonly<Pick<AccountNoteCreated['data'], 'body' | 'isPinned' | 'unpinAt' | 'source'>> & {
  readonly createdAt: string | null;
  readonly documentPaths: readonly string[];
};

/** A note of a request, or of a staged payload (which has no pinning), as a draft. */
export function noteDraft(note: NoteInput, source: RecordSource): NoteDraft {
  return {
    body: note.body ?? null,
    createdAt: note.created_at ?? null,
    isPinned: note.is_pinned ?? false,
    unpinAt: note.unpin_at ?? null,
    documentPaths: (note.document_paths ?? []).map((d) => d.document_path),
    source,
  };
}

function noteExists(book: NoteBook, draft: NoteDraft): boolean {
  const instants = book.instantsByContent.get(contentKey(draft.body, draft.documentPaths));
  if (!instants) return false;
  return draft.createdAt === null || instants.includes(instantOf(draft.createdAt));
}

/** A copy of the book sharing nothing `recordNote` changes. */
export function ownNoteBook(book: NoteBook): OwnedNoteBook {
  const instantsByContent = new Map<string, number[]>();
  for (const [key, instants] of book.instantsByContent) instantsByContent.set(key, [...instants]);
  return { count: book.count, instantsByContent };
}

/** Adds the note to a book the caller owns, in place. */
export function recordNote(book: OwnedNoteBook, event: AccountNoteCreated): OwnedNoteBook {
  const key = contentKey(event.data.body, event.data.documentPaths);
  const instants = book.instantsByContent.get(key);
  if (instants) instants.push(instantOf(event.data.createdAt));
  else book.instantsByContent.set(key, [instantOf(event.data.createdAt)]);
  book.count += 1;
  return book;
}

/**
 * Applies the uniqueness rule to the drafts in order (a draft repeating an earlier one of the batch is a
 * duplicate too): the events of the notes to create, and the book after them.
 */
export function addNotes(book: NoteBook, drafts: readonly NoteDraft[], account: AccountRef): { events: AccountNoteCreated[]; book: NoteBook } {
  const events: AccountNoteCreated[] = [];
  // One copy for the whole request: the drafts are recorded in it as they become notes.
  const current = ownNoteBook(book);
  for (const draft of drafts) {
    if (noteExists(current, draft)) continue;
    const event: AccountNoteCreated = {
      type: 'AccountNoteCreated',
      version: 1,
      data: {
        ...accountOf(account),
        sequence: current.count + 1,
        body: draft.body,
        // Spec 2.1 writes datetimes without a fraction: a defaulted created_at drops the clock's milliseconds.
        createdAt: draft.createdAt ?? specDateTime(account.now),
        createdAtGiven: draft.createdAt !== null,
        isPinned: draft.isPinned,
        unpinAt: draft.unpinAt,
        documentPaths: [...draft.documentPaths],
        source: draft.source,
      },
    };
    events.push(event);
    recordNote(current, event);
  }
  return { events, book: current };
}
