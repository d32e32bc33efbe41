import { Hono } from 'hono';
import { z } from 'zod';
import type { DocumentStore } from '../../adapters/document-store.js';
import { importNotes } from '../../application/account-notes.js';
import type { LedgerContext } from '../../application/context.js';
import { notesFailedValidation } from '../../domain/notes/decider.js';
import { importNotesRequestSchema, validateImportNotesRequest } from '../../domain/notes/note-payload.js';
import { noteStatuses } from '../../domain/notes/note-results.js';
import { httpActor, requireSupplierScope } from '../auth.js';
import type { AppEnv } from '../env.js';
import { scopedBody } from './record-requests.js';

/** POST notes/create/ (spec 4.9). */
export const createNotesRequestSchema = importNotesRequestSchema;
/** 201: one item per note of the request, in order. */
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

export function notesRoutes(ctx: LedgerContext, documents: DocumentStore) {
  return new Hono<AppEnv>().post('/notes/create/', async (c) => {
    const validation = validateImportNotesRequest(await scopedBody(c));
    if (!validation.ok) throw notesFailedValidation(validation.errors);
    const request = validation.data;
    requireSupplierScope(c, request.import_supplier);
    const results = await importNotes(ctx, documents, request, httpActor(c));
    const body: z.input<typeof createNotesResponseSchema> = results.map(({ note, createdAt, status }) => ({
      body: note.body ?? null,
      created_at: createdAt,
      is_pinned: note.is_pinned ?? false,
      ...(note.unpin_at === undefined ? {} : { unpin_at: note.unpin_at }),
      document_paths: note.document_paths ?? [],
      status,
    }));
    return c.json(body, 201);
  });
}
