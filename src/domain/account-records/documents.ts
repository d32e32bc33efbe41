import type { FieldError } from '../errors.js';

/**
 * A document path that names no document in the supplier's document root, or would leave it (`..`,
 * absolute): both are this one code, so the store's layout is not probed.
 */
export function pathDoesNotExist(path: string, attr: string): FieldError {
  const detail = `The document "${path}" does not exist in the import supplier's document store.`;
  return { detail, code: 'path_does_not_exist_in_file_store', attr };
}
