import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentKey, emptyDocumentStore, LocalDirectoryDocumentStore } from '../../src/adapters/document-store.js';

describe('documentKey: root + path, never leaving either', () => {
  it('joins the root and the relative path', () => {
    expect(documentKey('legacy', 'contracts/a.pdf')).toBe('legacy/contracts/a.pdf');
    expect(documentKey('/legacy/docs/', 'a.pdf')).toBe('legacy/docs/a.pdf');
    expect(documentKey('/', 'a.pdf')).toBe('a.pdf');
    expect(documentKey('', 'a b/é.pdf')).toBe('a b/é.pdf');
  });

  it.each([
    ['..', '../other/a.pdf'],
    ['.. in the middle', 'contracts/../../a.pdf'],
    ['absolute', '/etc/passwd'],
    ['backslash', 'contracts\\a.pdf'],
    ['empty segment', 'contracts//a.pdf'],
    ['trailing slash', 'contracts/'],
    ['dot segment', './a.pdf'],
    ['drive letter', 'C:/a.pdf'],
    ['control character', 'a\u0000.pdf'],
    ['empty', ''],
    ['too long', 'a'.repeat(1025)],
  ])('refuses a path with %s', (_name, path) => {
    expect(documentKey('legacy', path)).toBeNull();
  });

  it('a supplier without a root, or with a root that leaves the store, has no documents', () => {
    expect(documentKey(null, 'a.pdf')).toBeNull();
    expect(documentKey('../elsewhere', 'a.pdf')).toBeNull();
  });
});

describe('LocalDirectoryDocumentStore', () => {
  let base: string;
  let store: LocalDirectoryDocumentStore;
  const write = (path: string) => {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), 'x');
  };

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'import-ledger-docstore-'));
    write('store/legacy/contracts/a.pdf');
    write('store/other/secret.pdf');
    write('outside.pdf');
    mkdirSync(join(base, 'store/legacy/empty-dir'), { recursive: true });
    symlinkSync(join(base, 'outside.pdf'), join(base, 'store/legacy/escape.pdf'));
    symlinkSync(join(base, 'store/legacy/contracts/a.pdf'), join(base, 'store/legacy/alias.pdf'));
    store = new LocalDirectoryDocumentStore(join(base, 'store'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('finds a regular file under the supplier root', async () => {
    expect(await store.exists('legacy', 'contracts/a.pdf')).toBe(true);
    expect(await store.exists('/legacy/', 'contracts/a.pdf')).toBe(true);
  });

  it('a missing file, a directory, a path through a file: not there', async () => {
    expect(await store.exists('legacy', 'contracts/b.pdf')).toBe(false);
    expect(await store.exists('legacy', 'empty-dir')).toBe(false);
    expect(await store.exists('legacy', 'contracts/a.pdf/x')).toBe(false);
  });

  it('never reaches outside the root: other suppliers\' documents, .., absolute paths, symlinks out', async () => {
    expect(await store.exists('legacy', '../other/secret.pdf')).toBe(false);
    expect(await store.exists('legacy', '../../outside.pdf')).toBe(false);
    expect(await store.exists('legacy', join(base, 'outside.pdf'))).toBe(false);
    expect(await store.exists('legacy', 'escape.pdf')).toBe(false);
    expect(await store.exists('other', 'secret.pdf')).toBe(true);
  });

  it('follows a symlink that stays inside the root', async () => {
    expect(await store.exists('legacy', 'alias.pdf')).toBe(true);
  });

  it('no root, a root that does not exist, a store directory that does not exist: nothing is there', async () => {
    expect(await store.exists(null, 'contracts/a.pdf')).toBe(false);
    expect(await store.exists('nobody', 'contracts/a.pdf')).toBe(false);
    expect(await new LocalDirectoryDocumentStore(join(base, 'missing')).exists('legacy', 'contracts/a.pdf')).toBe(false);
    expect(await emptyDocumentStore.exists('legacy', 'contracts/a.pdf')).toBe(false);
  });

  it('"/" as root is the whole store', async () => {
    expect(await store.exists('/', 'legacy/contracts/a.pdf')).toBe(true);
  });
});
