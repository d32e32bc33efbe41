import type { BusinessCreated, BusinessEvent } from '../../../events/business.js';
import { assertNever } from '../assert-never.js';
import { ownedEvolution } from '../decider.js';

/** The key attributes that decide whether a second create is the same business (spec 2.4). */
export type BusinessKeyAttributes = Readonly<Pick<BusinessCreated['data']['business'], 'business_type' | 'company_name' | 'siret'>>;

export type BusinessState =
  | { readonly status: 'none' }
  | { readonly status: 'created'; readonly key: BusinessKeyAttributes; readonly contractIdentifiers: readonly string[] };

export const initialBusinessState: BusinessState = { status: 'none' };

/** The state a fold owns (see `ownedEvolution`): its contract list is appended to in place. */
type OwnedBusinessState =
  | { readonly status: 'none' }
  | { readonly status: 'created'; readonly key: BusinessKeyAttributes; readonly contractIdentifiers: string[] };

function step(state: OwnedBusinessState, event: BusinessEvent): OwnedBusinessState {
  switch (event.type) {
    case 'BusinessCreated': {
      const { business_type, company_name, siret } = event.data.business;
      return { status: 'created', key: { business_type, company_name, siret }, contractIdentifiers: [] };
    }
    case 'BusinessContractAdded':
      if (state.status === 'created') state.contractIdentifiers.push(event.data.identifier);
      return state;
    case 'BusinessPaymentInstructionCreated':
      // Payment instructions are the business payment-instruction decider's; the business itself is unchanged.
      return state;
    default:
      return assertNever(event);
  }
}

/** evolve and fold of a business stream: a business with many contracts folds in linear time. */
export const businessEvolution = ownedEvolution<BusinessState, BusinessEvent, OwnedBusinessState>({
  own: (state) => (state.status === 'created' ? { ...state, contractIdentifiers: [...state.contractIdentifiers] } : state),
  step,
});
