import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { stageAccount } from '../../src/application/account-import-processes.js';
import { setImportSupplierConfig, setImportSupplierStatus } from '../../src/application/operator.js';
import { examplePayload, importedExampleAccount, tempDocumentStore, type TempDocumentStore } from '../support/account-records.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/** Spec 4.9 through the real app over a temp-file SQLite database and a temp document store. */

const NOTES = '/v1/data-import/notes/create/';
const EXT = 'LEG-0000001';
type Json = any;
const notesExample = (): Json => structuredClone(loadExample('notes.json'));

let api: TestApi;
let documents: TempDocumentStore;
let token: string;

beforeEach(async () => {
  documents = tempDocumentStore();
  api = await createTestApi({ documents: documents.store });
  token = await accessToken(api);
});

afterEach(() => {
  api.close();
  documents.cleanup();
});

const streamVersion = () => api.ledger.store.streamVersion(accountImportProcessStreamId(SUPPLIER, EXT));

describe('POST notes/create/ (spec 4.9)', () => {
  it('creates the example notes: 201 with one result per note, kept in the notes projection', async () => {
    await importedExampleAccount(api.ledger);
    const res = await api.post(NOTES, notesExample(), token);
    expect(res.status).toBe(201);
    // A note without unpin_at has no unpin_at key (the platform's schema: never null): toStrictEqual tells a missing key from undefined.
    expect(await res.json()).toStrictEqual([
      {
        body: 'Welcome call done on migration day.',
        created_at: '2025-07-01T10:00:00Z',
        is_pinned: true,
        unpin_at: '2025-08-01T00:00:00Z',
        document_paths: [],
        status: 'NOTE_CREATION_SUCCESS',
      },
      {
        body: 'Signed contract scan attached.',
        created_at: '2026-11-21T10:00:00Z', // the server clock: none was given
        is_pinned: false,
        document_paths: [{ document_path: 'contracts/LEG-0000001/contract.pdf' }],
        status: 'NOTE_CREATION_SUCCESS',
      },
    ]);
    const notes = await api.ledger.read.listAccountNotes(SUPPLIER, EXT);
    // The staged payload's note came first, at process time.
    expect(notes.map((n) => [n.sequence, n.body, n.source, n.isPinned, n.unpinAt])).toEqual([
      [1, 'Customer asked for paper-free billing.', 'staged_payload', false, null],
      [2, 'Welcome call done on migration day.', 'import_request', true, '2025-08-01T00:00:00Z'],
      [3, 'Signed contract scan attached.', 'import_request', false, null],
    ]);
    expect(JSON.parse(notes[2]!.documentPaths)).toEqual(['contracts/LEG-0000001/contract.pdf']);
  });

  it('sending the same notes again: 201, every note NOTE_ALREADY_EXISTS, nothing appended', async () => {
    await importedExampleAccount(api.ledger);
    expect((await api.post(NOTES, notesExample(), token)).status).toBe(201);
    const version = await streamVersion();
    api.clock.advanceSeconds(60);
    const res = await api.post(NOTES, notesExample(), token);
    expect(res.status).toBe(201);
    expect(((await res.json()) as Json[]).map((r) => r.status)).toEqual(['NOTE_ALREADY_EXISTS', 'NOTE_ALREADY_EXISTS']);
    expect(await streamVersion()).toBe(version);
  });

  it('the staged payload\'s note already exists after process; a duplicate inside one request is NOTE_ALREADY_EXISTS', async () => {
    await importedExampleAccount(api.ledger);
    const note = { body: 'Customer asked for paper-free billing.', created_at: '2025-03-02T09:30:00Z' };
    const fresh = { body: 'Called back.' };
    const res = await api.post(NOTES, { import_supplier: SUPPLIER, external_account_number: EXT, notes: [note, fresh, fresh] }, token);
    expect(res.status).toBe(201);
    expect(((await res.json()) as Json[]).map((r) => r.status)).toEqual(['NOTE_ALREADY_EXISTS', 'NOTE_CREATION_SUCCESS', 'NOTE_ALREADY_EXISTS']);
  });

  it.each([
    ['a note with neither body nor document paths', { created_at: '2025-07-01T10:00:00Z' }, 'note_body_or_document_path_not_found', 'notes.0'],
    ['a blank body and no document paths', { body: '   ' }, 'note_body_or_document_path_not_found', 'notes.0'],
    [
      'unpin_at before created_at',
      { body: 'x', created_at: '2025-07-01T10:00:00Z', is_pinned: true, unpin_at: '2025-06-01T00:00:00Z' },
      'note_unpin_at_earlier_than_creation_date',
      'notes.0.unpin_at',
    ],
    ['a malformed created_at', { body: 'x', created_at: '2025-07-01 10:00' }, 'invalid', 'notes.0.created_at'],
    ['a missing document', { body: 'x', document_paths: [{ document_path: 'contracts/missing.pdf' }] }, 'path_does_not_exist_in_file_store', 'notes.0.document_paths.0.document_path'],
    ['a path escaping the root', { body: 'x', document_paths: [{ document_path: '../legacy-energie/contracts/LEG-0000001/contract.pdf' }] }, 'path_does_not_exist_in_file_store', 'notes.0.document_paths.0.document_path'],
    ['an absolute path', { body: 'x', document_paths: [{ document_path: '/etc/passwd' }] }, 'path_does_not_exist_in_file_store', 'notes.0.document_paths.0.document_path'],
  ])('%s: 400 notes_failed_validation, nothing written', async (_name, note, code, attr) => {
    await importedExampleAccount(api.ledger);
    const version = await streamVersion();
    const res = await api.post(NOTES, { import_supplier: SUPPLIER, external_account_number: EXT, notes: [{ body: 'fine' }, note].reverse() }, token);
    const body = await expectErrorBody(res, 400, 'notes_failed_validation');
    expect(body.errors.map((e) => ({ code: e.code, attr: e.attr }))).toEqual([{ code, attr }]);
    expect(await streamVersion()).toBe(version);
  });

  it('a past unpin_at without created_at is created, as on the platform (the two are compared only when both are given)', async () => {
    await importedExampleAccount(api.ledger);
    const note = { body: 'pinned long ago', is_pinned: true, unpin_at: '2020-01-01T00:00:00Z' };
    const res = await api.post(NOTES, { import_supplier: SUPPLIER, external_account_number: EXT, notes: [note] }, token);
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toMatchObject([{ ...note, status: 'NOTE_CREATION_SUCCESS' }]);
  });

  it('an empty notes array, a missing envelope field: 400 notes_failed_validation with the fields', async () => {
    const res = await api.post(NOTES, { import_supplier: SUPPLIER, notes: [] }, token);
    const body = await expectErrorBody(res, 400, 'notes_failed_validation');
    expect(body.errors.map((e) => ({ code: e.code, attr: e.attr }))).toEqual([
      { code: 'required', attr: 'external_account_number' },
      { code: 'empty', attr: 'notes' },
    ]);
  });

  it('the platform\'s deprecated account_number names the account instead of external_account_number; both only with the same value', async () => {
    await importedExampleAccount(api.ledger);
    const { external_account_number: _ext, ...withoutExt } = notesExample();
    const viaAlias = await api.post(NOTES, { ...withoutExt, account_number: EXT }, token);
    expect(viaAlias.status, await viaAlias.clone().text()).toBe(201);
    expect(((await viaAlias.json()) as { status: string }[]).map((n) => n.status)).toEqual(['NOTE_CREATION_SUCCESS', 'NOTE_CREATION_SUCCESS']);
    const both = await api.post(NOTES, { ...notesExample(), account_number: EXT }, token);
    expect(((await both.json()) as { status: string }[]).map((n) => n.status)).toEqual(['NOTE_ALREADY_EXISTS', 'NOTE_ALREADY_EXISTS']);
    await expectErrorBody(await api.post(NOTES, { ...withoutExt, account_number: 'NOPE' }, token), 404, 'account_not_found');

    const version = await streamVersion();
    const differ = await expectErrorBody(await api.post(NOTES, { ...notesExample(), account_number: 'LEG-0000002' }, token), 400, 'notes_failed_validation');
    expect(differ.errors.map((e) => ({ code: e.code, attr: e.attr }))).toEqual([{ code: 'fields_are_mutually_exclusive', attr: 'account_number' }]);
    const blank = await expectErrorBody(await api.post(NOTES, { ...withoutExt, account_number: ' ' }, token), 400, 'notes_failed_validation');
    expect(blank.errors.map((e) => ({ code: e.code, attr: e.attr }))).toEqual([
      { code: 'required', attr: 'external_account_number' },
      { code: 'blank', attr: 'account_number' },
    ]);
    expect(await streamVersion()).toBe(version);
  });

  it('a staged-only account, an unknown account or the wrong supplier code: 404 account_not_found', async () => {
    await stageAccount(api.ledger, examplePayload(), operator);
    await expectErrorBody(await api.post(NOTES, notesExample(), token), 404, 'account_not_found');
    await expectErrorBody(await api.post(NOTES, { ...notesExample(), external_account_number: 'NOPE' }, token), 404, 'account_not_found');
    await importedExampleAccount(api.ledger, { external_account_number: 'LEG-0000002' });
    const otherToken = await accessToken(api, api.otherKey);
    const wrongSupplier = { ...notesExample(), import_supplier: OTHER_SUPPLIER, external_account_number: 'LEG-0000002' };
    await expectErrorBody(await api.post(NOTES, wrongSupplier, otherToken), 404, 'account_not_found');
  });

  it('a supplier that is not Ongoing: 400 import_supplier_migration_not_ongoing', async () => {
    await importedExampleAccount(api.ledger);
    await setImportSupplierStatus(api.ledger, SUPPLIER, 'Paused', operator);
    await expectErrorBody(await api.post(NOTES, notesExample(), token), 400, 'import_supplier_migration_not_ongoing');
  });

  it('scope first: a key of another supplier gets 403 even for an invalid body; then body validation before the account', async () => {
    const otherToken = await accessToken(api, api.otherKey);
    await expectErrorBody(await api.post(NOTES, { import_supplier: SUPPLIER, notes: 'x' }, otherToken), 403, 'permission_denied');
    // Valid scope, invalid body, unknown account: the body is checked first.
    await expectErrorBody(await api.post(NOTES, { import_supplier: SUPPLIER, external_account_number: 'NOPE', notes: [{}] }, token), 400, 'notes_failed_validation');
  });

  it('a supplier without a document root has no documents', async () => {
    await importedExampleAccount(api.ledger);
    await setImportSupplierConfig(api.ledger, SUPPLIER, { documentRoot: null }, operator);
    const body = await expectErrorBody(await api.post(NOTES, notesExample(), token), 400, 'notes_failed_validation');
    expect(body.errors.map((e) => e.code)).toEqual(['path_does_not_exist_in_file_store']);
  });

  it('process brings the staged note in its own transaction: a dry run records none', async () => {
    await stageAccount(api.ledger, examplePayload(), operator);
    const process = { external_account_number: EXT, import_supplier_code: SUPPLIER, operations_team_name: 'Migrations' };
    await expectErrorBody(await api.post('/v1/data-import/account-import-process/process/', { ...process, dry_run: true }, token), 400, 'dry_run_rollback');
    expect(await api.ledger.read.listAccountNotes(SUPPLIER, EXT)).toEqual([]);
    expect((await api.post('/v1/data-import/account-import-process/process/', process, token)).status).toBe(201);
    expect((await api.ledger.read.listAccountNotes(SUPPLIER, EXT)).map((n) => n.source)).toEqual(['staged_payload']);
  });

  it('a failing document store is a 500 and nothing is written', async () => {
    const broken = await createTestApi({ documents: { exists: async () => Promise.reject(Object.assign(new Error('EIO'), { code: 'EIO' })) } });
    try {
      await importedExampleAccount(broken.ledger);
      const version = await broken.ledger.store.streamVersion(accountImportProcessStreamId(SUPPLIER, EXT));
      const res = await broken.post(NOTES, notesExample(), await accessToken(broken));
      await expectErrorBody(res, 500, 'internal_error');
      expect(await broken.ledger.store.streamVersion(accountImportProcessStreamId(SUPPLIER, EXT))).toBe(version);
    } finally {
      broken.close();
    }
  });

  it('needs a token (401)', async () => {
    const res = await api.app.request(NOTES, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await expectErrorBody(res, 401, 'not_authenticated');
  });
});
