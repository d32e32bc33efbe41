import { describe, expect, it } from 'vitest';
import { validateImportNotesRequest } from '../../../src/domain/notes/note-payload.js';
import { loadExample } from '../../support/ledger.js';

const request = (notes: unknown) => ({ import_supplier: 'LEGACY_ENERGIE', external_account_number: 'LEG-0000001', notes });
const problems = (input: unknown) => {
  const result = validateImportNotesRequest(input);
  return result.ok ? [] : result.errors.map((e) => [e.code, e.attr]);
};

describe('notes/create/ request (spec 4.9)', () => {
  it('accepts the example as is', () => {
    const result = validateImportNotesRequest(loadExample('notes.json'));
    expect(result.ok && result.data).toEqual(loadExample('notes.json'));
  });

  it('drops unknown fields', () => {
    const result = validateImportNotesRequest({ ...request([{ body: 'x', colour: 'red' }]), extra: 1 });
    expect(result.ok && result.data).toEqual(request([{ body: 'x' }]));
  });

  it.each([
    [[{}], [['note_body_or_document_path_not_found', 'notes.0']]],
    [[{ body: '' , document_paths: [] }], [['note_body_or_document_path_not_found', 'notes.0']]],
    [[{ document_paths: [{ document_path: ' ' }] }], [['blank', 'notes.0.document_paths.0.document_path']]],
    [[{ body: 'x', created_at: '2025-07-01T10:00:00Z', unpin_at: '2025-07-01T10:00:00Z' }], [['note_unpin_at_earlier_than_creation_date', 'notes.0.unpin_at']]],
    [[{ body: 'x', created_at: '2025-07-01T10:00:00+02:00', unpin_at: '2025-07-01T09:00:00Z' }], []],
    [[{ body: 'x', is_pinned: 'yes' }], [['invalid', 'notes.0.is_pinned']]],
    [[{ body: 'x', unpin_at: '2025-13-01T00:00:00Z' }], [['invalid', 'notes.0.unpin_at']]],
    [[], [['empty', 'notes']]],
    ['x', [['not_a_list', 'notes']]],
  ])('notes %j -> %j', (notes, expected) => {
    expect(problems(request(notes))).toEqual(expected);
  });

  it('at most 1000 notes per request', () => {
    expect(problems(request(Array.from({ length: 1001 }, (_, i) => ({ body: `n${i}` }))))).toEqual([['max_length', 'notes']]);
  });
});
