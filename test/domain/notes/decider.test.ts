import { describe, expect, it } from 'vitest';
import type { AccountNoteCreated } from '../../../events/account-records.js';
import { notesDecider as decider, type ImportNotes } from '../../../src/domain/notes/decider.js';
import type { NoteInput } from '../../../src/domain/notes/note-payload.js';
import { noteResultStatuses } from '../../../src/domain/notes/note-results.js';
import { given } from '../../support/given.js';
import { base, imported, noteCreated, processed, ref, staged, statementImported, transactionAdded, recordedCharge } from '../account-records-fixtures.js';

const importNotes = (notes: NoteInput[], extra: Partial<ImportNotes> = {}): ImportNotes => ({
  type: 'ImportNotes',
  ...base,
  notes,
  existingDocumentPaths: new Set(['contracts/a.pdf']),
  ...extra,
});

describe('notes decider (spec 4.9)', () => {
  it('the account must be imported: none, staged only or an unknown supplier -> account_not_found', () => {
    given(decider).when(importNotes([{ body: 'x' }])).thenFails('account_not_found');
    given(decider, [staged()]).when(importNotes([{ body: 'x' }])).thenFails('account_not_found');
    given(decider, imported).when(importNotes([{ body: 'x' }], { supplierStatus: null })).thenFails('account_not_found');
  });

  it('a supplier not Ongoing -> import_supplier_migration_not_ongoing', () => {
    given(decider, imported).when(importNotes([{ body: 'x' }], { supplierStatus: 'Paused' })).thenFails('import_supplier_migration_not_ongoing');
  });

  it('creates each note with the next sequence; created_at defaults to the clock (seconds)', () => {
    given(decider, imported)
      .when(importNotes([{ body: 'a', created_at: '2025-07-01T10:00:00Z', is_pinned: true, unpin_at: '2025-08-01T00:00:00Z' }, { body: 'b' }]))
      .then([
        noteCreated(1, 'a', '2025-07-01T10:00:00Z', { isPinned: true, unpinAt: '2025-08-01T00:00:00Z' }),
        noteCreated(2, 'b', '2026-11-21T10:00:00Z', { createdAtGiven: false }),
      ]);
  });

  it('same body and no created_at: NOTE_ALREADY_EXISTS whatever its time', () => {
    given(decider, [...imported, noteCreated(1, 'a', '2020-01-01T00:00:00Z')]).when(importNotes([{ body: 'a' }])).then([]);
  });

  it('same body and the same created_at instant: exists; another instant: a new note', () => {
    const history = [...imported, noteCreated(1, 'a', '2025-07-01T10:00:00Z')];
    given(decider, history).when(importNotes([{ body: 'a', created_at: '2025-07-01T12:00:00+02:00' }])).then([]);
    given(decider, history)
      .when(importNotes([{ body: 'a', created_at: '2025-07-02T10:00:00Z' }]))
      .then([noteCreated(2, 'a', '2025-07-02T10:00:00Z')]);
  });

  it('duplicates inside one request count too: the second is not created', () => {
    given(decider, imported)
      .when(importNotes([{ body: 'a' }, { body: 'a' }, { body: 'a', created_at: '2026-11-21T10:00:00Z' }]))
      .then([noteCreated(1, 'a', '2026-11-21T10:00:00Z', { createdAtGiven: false })]);
  });

  it('a note without a body is known by its document paths', () => {
    const doc = { document_paths: [{ document_path: 'contracts/a.pdf' }] };
    given(decider, imported)
      .when(importNotes([doc, doc]))
      .then([noteCreated(1, null, '2026-11-21T10:00:00Z', { createdAtGiven: false, documentPaths: ['contracts/a.pdf'] })]);
  });

  it('every document path must exist in the store: path_does_not_exist_in_file_store at its attr', () => {
    const error = given(decider, imported)
      .when(importNotes([{ body: 'x', document_paths: [{ document_path: 'contracts/a.pdf' }, { document_path: 'nope.pdf' }] }]))
      .thenFails('notes_failed_validation');
    expect(error.errors).toEqual([
      { detail: expect.any(String), code: 'path_does_not_exist_in_file_store', attr: 'notes.0.document_paths.1.document_path' },
    ]);
  });

  it('unpin_at is compared with created_at only when both are given, as on the platform: a past unpin_at without created_at is kept', () => {
    given(decider, imported)
      .when(importNotes([{ body: 'x', is_pinned: true, unpin_at: '2020-01-01T00:00:00Z' }]))
      .then([noteCreated(1, 'x', '2026-11-21T10:00:00Z', { createdAtGiven: false, isPinned: true, unpinAt: '2020-01-01T00:00:00Z' })]);
  });

  it('folds only what it needs: the ledger\'s and statements\' events leave its state alone', () => {
    given(decider, [...imported, transactionAdded(recordedCharge('T1', '2025-07-01', 100)), statementImported('S1', '2025-05-01', '2025-05-31')])
      .when(importNotes([{ body: 'a', created_at: '2025-07-01T10:00:00Z' }]))
      .then([noteCreated(1, 'a', '2025-07-01T10:00:00Z')]);
  });
});

describe('note results: the status of each requested note, from the notes created', () => {
  it('matches the created notes to the request in order', () => {
    const notes: NoteInput[] = [{ body: 'old' }, { body: 'a' }, { body: 'a' }, { body: 'b', created_at: '2025-01-01T00:00:00Z' }];
    const created: AccountNoteCreated[] = [
      noteCreated(2, 'a', '2026-11-21T10:00:00Z', { createdAtGiven: false }),
      noteCreated(3, 'b', '2025-01-01T00:00:00Z'),
    ];
    expect(noteResultStatuses(notes, created)).toEqual(['NOTE_ALREADY_EXISTS', 'NOTE_CREATION_SUCCESS', 'NOTE_ALREADY_EXISTS', 'NOTE_CREATION_SUCCESS']);
  });

  it('is consistent with the decider', () => {
    const notes: NoteInput[] = [{ body: 'a' }, { body: 'a', created_at: '2025-01-01T00:00:00Z' }, { body: 'a' }];
    const events = decider.decide(importNotes(notes), imported.reduce(decider.evolve, decider.initialState)) as AccountNoteCreated[];
    expect(noteResultStatuses(notes, events)).toEqual(['NOTE_CREATION_SUCCESS', 'NOTE_CREATION_SUCCESS', 'NOTE_ALREADY_EXISTS']);
    expect(events.map((e) => e.data.sequence)).toEqual([1, 2]);
    expect(ref.externalAccountNumber).toBe(processed.data.externalAccountNumber);
  });
});
