import type { AccountPayload } from '../domain/account-import-process/account-payload.js';
import type { FieldError } from '../domain/errors.js';
import type { ReadModels } from '../queries/read-models.js';
import { businessContractReferenceCheck } from './business-contract-references.js';
import { tariffCodeReferenceCheck } from './tariff-code-references.js';

/**
 * A check of what an account payload refers to outside itself (products,
 * business contracts, ...). It needs lookups, so it is not part of the pure
 * payload validation; its errors join the payload's under
 * `account_failed_validation`, with attrs into the payload.
 */
export type AccountReferenceCheck = (read: ReadModels, payload: AccountPayload) => Promise<FieldError[]>;

/** Every reference check, run by validate-account, stage and process. */
export const accountReferenceChecks: readonly AccountReferenceCheck[] = [businessContractReferenceCheck, tariffCodeReferenceCheck];

export async function checkAccountReferences(read: ReadModels, payload: AccountPayload): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const check of accountReferenceChecks) errors.push(...(await check(read, payload)));
  return errors;
}
