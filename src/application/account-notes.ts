import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import type { AccountNoteCreated } from '../../events/account-records.js';
import type { DocumentStore } from '../adapters/document-store.js';
import { notesDecider } from '../domain/notes/decider.js';
import type { ImportNotesRequest } from '../domain/notes/note-payload.js';
import { noteResultStatuses, type NoteResult } from '../domain/notes/note-results.js';
import { existingDocumentPaths, supplierFacts } from './account-record-facts.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';

/**
 * Adds notes to an imported account (spec 4.9), all in one command and one transaction. The document
 * paths are facts looked up in the supplier's document root before; the supplier's status is guarded.
 */
export async function importNotes(
  ctx: LedgerContext,
  documents: DocumentStore,
  request: ImportNotesRequest,
  actor: Actor,
): Promise<NoteResult[]> {
  return withRetry(async () => {
    const supplier = await supplierFacts(ctx, request.import_supplier);
    const paths = request.notes.flatMap((note) => (note.document_paths ?? []).map((d) => d.document_path));
    const result = await handle(
      ctx,
      actor,
      notesDecider,
      accountImportProcessStreamId(request.import_supplier, request.external_account_number),
      {
        type: 'ImportNotes',
        importSupplier: request.import_supplier,
        externalAccountNumber: request.external_account_number,
        supplierStatus: supplier.status,
        notes: request.notes,
        existingDocumentPaths: await existingDocumentPaths(documents, supplier.documentRoot, paths),
      },
      { guards: supplier.guards },
    );
    const created = result.events.map((stored) => stored.event).filter((event): event is AccountNoteCreated => event.type === 'AccountNoteCreated');
    const statuses = noteResultStatuses(request.notes, created);
    const defaultCreatedAt = result.envelope.now.toISOString().replace(/\.\d+Z$/, 'Z');
    return request.notes.map((note, i) => ({ note, createdAt: note.created_at ?? defaultCreatedAt, status: statuses[i] ?? 'NOTE_ALREADY_EXISTS' }));
  });
}
