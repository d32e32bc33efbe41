import { z } from 'zod';
import { isoDateTime } from '../account-import-process/iso-dates.js';
import { addDomainIssue, noteHasContent, requiredText, whenClean } from '../account-import-process/payload-fields.js';
import { accountEnvelopeFields, MAX_RECORDS_PER_REQUEST, validateAccountRequest, withAccountNumberAlias } from '../account-records/request-fields.js';
import type { Validation } from '../validation/field-errors.js';

/** The instant a datetime names, in milliseconds (both are valid ISO 8601 with an offset). */
export function instantOf(datetime: string): number {
  return Date.parse(datetime);
}

export function hasBody(body: string | undefined | null): body is string {
  return body !== undefined && body !== null && body.trim() !== '';
}

/** One note of notes/create/ (spec 4.9). */
const noteInputSchema = z
  .object({
    body: z.string().optional(),
    created_at: isoDateTime().optional(),
    is_pinned: z.boolean().optional(),
    unpin_at: isoDateTime().optional(),
    document_paths: z.array(z.object({ document_path: requiredText(1024) })).optional(),
  })
  .superRefine(...noteHasContent('report'))
  .superRefine((note, ctx) => {
    // With no created_at the note is created "now": the decider checks unpin_at against the clock.
    if (note.created_at !== undefined && note.unpin_at !== undefined && instantOf(note.unpin_at) <= instantOf(note.created_at)) {
      addDomainIssue(ctx, 'note_unpin_at_earlier_than_creation_date', 'unpin_at must be later than created_at.', ['unpin_at']);
    }
  }, whenClean(['created_at'], ['unpin_at']));
export type NoteInput = z.output<typeof noteInputSchema>;

/** POST notes/create/ (spec 4.9). Unknown fields are dropped. */
export const importNotesRequestSchema = withAccountNumberAlias(
  z.object({
    ...accountEnvelopeFields,
    notes: z.array(noteInputSchema).min(1).max(MAX_RECORDS_PER_REQUEST),
  }),
);
export type ImportNotesRequest = z.output<typeof importNotesRequestSchema>;

export function validateImportNotesRequest(input: unknown): Validation<ImportNotesRequest> {
  return validateAccountRequest(importNotesRequestSchema, input);
}
