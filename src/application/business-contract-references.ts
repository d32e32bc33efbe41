import type { AccountPayload } from '../domain/account-import-process/account-payload.js';
import type { FieldError } from '../domain/errors.js';
import type { BusinessContractLink } from '../queries/business-read-models.js';
import type { ReadModels } from '../queries/read-models.js';
import type { AccountReferenceCheck } from './account-reference-check.js';

export const BUSINESS_CONTRACT_ATTR = 'business.business_contract_identifier';

/** The contract identifier a BUSINESS account names (spec 1.5), if any. */
export function namedBusinessContract(payload: AccountPayload): string | null {
  if (payload.account_type !== 'BUSINESS') return null;
  return payload.business?.business_contract_identifier ?? null;
}

/** The business contract the account names, looked up among the businesses of its own import supplier. */
export async function findNamedBusinessContract(read: ReadModels, payload: AccountPayload): Promise<BusinessContractLink | null> {
  const identifier = namedBusinessContract(payload);
  return identifier === null ? null : read.findBusinessContract(payload.import_supplier, identifier);
}

/**
 * A BUSINESS account's `business.business_contract_identifier`, when given, names a
 * contract of a business of the same import supplier (`business_contract_not_found`).
 */
export const businessContractReferenceCheck: AccountReferenceCheck = async (read, payload): Promise<FieldError[]> => {
  const identifier = namedBusinessContract(payload);
  if (identifier === null) return [];
  if (await read.findBusinessContract(payload.import_supplier, identifier)) return [];
  return [
    {
      detail: `No business of import supplier ${payload.import_supplier} has a contract with identifier ${identifier}.`,
      code: 'business_contract_not_found',
      attr: BUSINESS_CONTRACT_ATTR,
    },
  ];
};
