import type { AccountPayload } from '../domain/account-import-process/account-payload.js';
import type { FieldError } from '../domain/errors.js';
import type { ReadModels } from '../queries/read-models.js';
import type { AccountReferenceCheck } from './account-reference-check.js';
import { businessContractReferenceCheck } from './business-contract-references.js';
import { tariffCodeReferenceCheck } from './tariff-code-references.js';

/** Every reference check, run by validate-account, stage and process. */
export const accountReferenceChecks: readonly AccountReferenceCheck[] = [businessContractReferenceCheck, tariffCodeReferenceCheck];

export async function checkAccountReferences(read: ReadModels, payload: AccountPayload): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const check of accountReferenceChecks) errors.push(...(await check(read, payload)));
  return errors;
}
