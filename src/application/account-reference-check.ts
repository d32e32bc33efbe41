import type { AccountPayload } from '../domain/account-import-process/account-payload.js';
import type { FieldError } from '../domain/errors.js';
import type { ReadModels } from '../queries/read-models.js';

/**
 * A check of what an account payload refers to outside itself (products,
 * business contracts, ...). It needs lookups, so it is not part of the pure
 * payload validation; its errors join the payload's under
 * `account_failed_validation`, with attrs into the payload.
 *
 * Its own module so that the checks and the list of them (account-references.ts)
 * both depend on it, and not on each other.
 */
export type AccountReferenceCheck = (read: ReadModels, payload: AccountPayload) => Promise<FieldError[]>;
