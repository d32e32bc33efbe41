import type { BusinessEvent } from '../../../events/business.js';
import { assertNever } from '../assert-never.js';

/** The key attributes that decide whether a second create is the same business (spec 2.4). */
export interface BusinessKeyAttributes {
  readonly business_type: string;
  readonly company_name: string;
  readonly siret: string;
}

export type BusinessState =
  | { readonly status: 'none' }
  | { readonly status: 'created'; readonly key: BusinessKeyAttributes; readonly contractIdentifiers: readonly string[] };

export const initialBusinessState: BusinessState = { status: 'none' };

export function evolveBusiness(state: BusinessState, event: BusinessEvent): BusinessState {
  switch (event.type) {
    case 'BusinessCreated': {
      const { business_type, company_name, siret } = event.data.business;
      return { status: 'created', key: { business_type, company_name, siret }, contractIdentifiers: [] };
    }
    case 'BusinessContractAdded':
      return state.status === 'created'
        ? { ...state, contractIdentifiers: [...state.contractIdentifiers, event.data.identifier] }
        : state;
    case 'BusinessPaymentInstructionCreated':
      // Payment instructions are the business payment-instruction decider's; the business itself is unchanged.
      return state;
    default:
      return assertNever(event);
  }
}
