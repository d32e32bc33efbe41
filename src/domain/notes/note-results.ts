import type { AccountNoteCreated } from '../../../events/account-records.js';
import { noteDraft, type NoteDraft } from './note-book.js';
import type { NoteInput } from './note-payload.js';

/** What notes/create/ reports for each note of the request. */
export interface NoteResult {
  readonly note: NoteInput;
  /** The note's created_at as given, or the server clock's time when none was given. */
  readonly createdAt: string;
  readonly status: NoteStatus;
}

export const noteStatuses = ['NOTE_CREATION_SUCCESS', 'NOTE_ALREADY_EXISTS'] as const;
export type NoteStatus = (typeof noteStatuses)[number];

function sameNote(draft: NoteDraft, event: AccountNoteCreated): boolean {
  const data = event.data;
  return (
    data.body === draft.body &&
    data.createdAtGiven === (draft.createdAt !== null) &&
    (draft.createdAt === null || data.createdAt === draft.createdAt) &&
    data.isPinned === draft.isPinned &&
    data.unpinAt === draft.unpinAt &&
    JSON.stringify(data.documentPaths) === JSON.stringify(draft.documentPaths)
  );
}

/**
 * The status of every requested note, from the notes the command created: a subsequence of the request, in
 * order; of identical items only the first can be created, so matching in order is exact.
 */
export function noteResultStatuses(notes: readonly NoteInput[], created: readonly AccountNoteCreated[]): NoteStatus[] {
  let next = 0;
  return notes.map((note) => {
    const event = created[next];
    if (event && sameNote(noteDraft(note, 'import_request'), event)) {
      next += 1;
      return 'NOTE_CREATION_SUCCESS';
    }
    return 'NOTE_ALREADY_EXISTS';
  });
}
