import { Hono } from 'hono';
import type { DocumentStore } from '../../adapters/document-store.js';
import { notesAnswer } from '../../answers/account-records.js';
import { importNotes } from '../../application/account-notes.js';
import type { LedgerContext } from '../../application/context.js';
import { notesFailedValidation } from '../../domain/notes/decider.js';
import { importNotesRequestSchema, validateImportNotesRequest } from '../../domain/notes/note-payload.js';
import { answer } from '../answer.js';
import { httpActor, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { validated } from '../validation.js';

/** POST notes/create/ (spec 4.9). */
export const createNotesRequestSchema = importNotesRequestSchema;

export function notesRoutes(ctx: LedgerContext, documents: DocumentStore) {
  return new Hono<AppEnv>().post('/notes/create/', async (c) => {
    const request = validated(await scopedBody(c), validateImportNotesRequest, notesFailedValidation);
    return answer(c, notesAnswer(await importNotes(ctx, documents, request, httpActor(c))));
  });
}
