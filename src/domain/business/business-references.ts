import type { BusinessPayload } from './business-payload.js';

/** A value of the payload that names something outside it, with its attr (spec 7 dot path). */
export interface PayloadReference {
  readonly value: string;
  readonly attr: string;
}

/**
 * Every product code the contracts name: the items of PRODUCT_RATE_OVERRIDE_SCHEDULE
 * terms and the schedules of RATE_GROUP_ELIGIBILITY terms, in payload order.
 */
export function productCodeReferences(payload: BusinessPayload): PayloadReference[] {
  const references: PayloadReference[] = [];
  payload.business.business_contracts.forEach((contract, c) => {
    contract.versions.forEach((version, v) => {
      version.terms.forEach((term, t) => {
        const base = `business.business_contracts.${c}.versions.${v}.terms.${t}`;
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
  return payload.business.business_contracts.map((contract, c) => ({
    value: contract.identifier,
    attr: `business.business_contracts.${c}.identifier`,
  }));
}
