import type { FieldError } from '../errors.js';

/**
 * A document path (a note's document_paths, a statement's statement_path) that
 * does not name a document in the supplier's document root, or that would leave
 * it (`..`, absolute): both are this one code, so the store's layout is not probed.
 */
export const PATH_DOES_NOT_EXIST_IN_FILE_STORE = 'path_does_not_exist_in_file_store';

export function pathDoesNotExist(path: string, attr: string): FieldError {
  return {
    detail: `The document "${path}" does not exist in the import supplier's document store.`,
    code: PATH_DOES_NOT_EXIST_IN_FILE_STORE,
    attr,
  };
}
