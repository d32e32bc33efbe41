import { realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';

/**
 * Where imported documents (notes' document_paths, statements' statement_path) live. Spec 2.1: the store
 * (the instance's bucket), then the supplier's document root, then the path. An object store follows the
 * same contract: build the key with `documentKey` and ask whether an object exists at it.
 */
export interface DocumentStore {
  /** Whether `path` names a document under `root`: never one outside it (`documentKey` is null); none without a root. */
  exists(root: string | null, path: string): Promise<boolean>;
}

const MAX_PATH_LENGTH = 1024;

/** Segments of a relative path, or null when it is not one we can trust. */
function safeSegments(path: string): string[] | null {
  if (path.length === 0 || path.length > MAX_PATH_LENGTH) return null;
  // Absolute paths, backslashes (another separator on some systems), drive letters and control characters are refused outright.
  if (path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path) || /[\u0000-\u001f\u007f]/.test(path)) return null;
  const segments = path.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return null;
  return segments;
}

/** The segments of a supplier's document root: leading and trailing slashes are ignored, "/" (or "") is the whole store. */
function rootSegments(root: string | null): string[] | null {
  if (root === null) return null;
  const trimmed = root.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : safeSegments(trimmed);
}

/** The store key of a document, `<root>/<path>`, or null when the path is not relative or has an empty, `.` or `..` segment. */
export function documentKey(root: string | null, path: string): string | null {
  const prefix = rootSegments(root);
  const segments = safeSegments(path);
  if (prefix === null || segments === null) return null;
  return [...prefix, ...segments].join('/');
}

/** Errors that mean "no such document here" rather than a broken store. */
const ABSENT = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'ENAMETOOLONG', 'EACCES', 'EPERM']);

function isAbsent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && ABSENT.has(String((error as { code: unknown }).code));
}

/**
 * Documents as regular files in a local directory (LEDGER_DOCUMENT_STORE): `<directory>/<root>/<path>`,
 * symbolic links followed only to a file still inside `<directory>/<root>`. A failure other than "not
 * there" is thrown (a 500 that writes nothing).
 */
export class LocalDirectoryDocumentStore implements DocumentStore {
  private readonly directory: string;

  constructor(directory: string) {
    this.directory = resolve(directory);
  }

  async exists(root: string | null, path: string): Promise<boolean> {
    const prefix = rootSegments(root);
    const segments = safeSegments(path);
    if (prefix === null || segments === null) return false;
    try {
      const rootDirectory = await realpath(resolve(this.directory, ...prefix));
      const file = await realpath(resolve(rootDirectory, ...segments));
      if (!file.startsWith(rootDirectory.endsWith(sep) ? rootDirectory : rootDirectory + sep)) return false;
      return (await stat(file)).isFile();
    } catch (error) {
      if (isAbsent(error)) return false;
      throw error;
    }
  }
}

/** A store that holds nothing: every path is missing (the default when no store is configured). */
export const emptyDocumentStore: DocumentStore = {
  exists: async () => false,
};
