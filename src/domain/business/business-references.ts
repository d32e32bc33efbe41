import type { BusinessContract, BusinessPayload } from './business-payload.js';

/** A value of the payload that names something outside it, with its attr (spec 7 dot path). */
export interface PayloadReference {
  readonly value: string;
  readonly attr: string;
}

/** Where business/ holds its contracts; business-contracts/create/ holds them at `business_contracts`. */
export const BUSINESS_CONTRACTS_ATTR = 'business.business_contracts';

/** Every product code the contracts name (PRODUCT_RATE_OVERRIDE_SCHEDULE items, RATE_GROUP_ELIGIBILITY schedules). */
export function productCodeReferences(payload: BusinessPayload): PayloadReference[] {
  return contractProductCodeReferences(payload.business.business_contracts, BUSINESS_CONTRACTS_ATTR);
}

/** `productCodeReferences` of a list of contracts found at `attr` in its payload. */
export function contractProductCodeReferences(contracts: readonly BusinessContract[], attr: string): PayloadReference[] {
  const references: PayloadReference[] = [];
  contracts.forEach((contract, c) => {
    contract.versions.forEach((version, v) => {
      version.terms.forEach((term, t) => {
        const base = `${attr}.${c}.versions.${v}.terms.${t}`;
        if (term.term_type === 'PRODUCT_RATE_OVERRIDE_SCHEDULE') {
          term.schedules.forEach((schedule, s) => {
            schedule.items.forEach((item, i) => {
              references.push({ value: item.product_code, attr: `${base}.schedules.${s}.items.${i}.product_code` });
            });
          });
        } else if (term.term_type === 'RATE_GROUP_ELIGIBILITY') {
          term.schedules.forEach((schedule, s) => {
            references.push({ value: schedule.product_code, attr: `${base}.schedules.${s}.product_code` });
          });
        }
      });
    });
  });
  return references;
}

/** The contract identifiers of the payload, with their attrs. */
export function contractIdentifierReferences(payload: BusinessPayload): PayloadReference[] {
  return contractIdentifierReferencesOf(payload.business.business_contracts, BUSINESS_CONTRACTS_ATTR);
}

/** `contractIdentifierReferences` of a list of contracts found at `attr` in its payload. */
export function contractIdentifierReferencesOf(contracts: readonly BusinessContract[], attr: string): PayloadReference[] {
  return contracts.map((contract, c) => ({ value: contract.identifier, attr: `${attr}.${c}.identifier` }));
}
