import type { BusinessEvent } from '../../../events/business.js';
import type { Decider } from '../decider.js';
import { assertNever } from '../assert-never.js';
import { DomainError, type FieldError } from '../errors.js';
import type { BusinessContract } from './business-payload.js';
import { BUSINESS_CONTRACTS_ATTR, contractIdentifierReferencesOf, contractProductCodeReferences } from './business-references.js';
import type { AddBusinessContracts, BusinessCommand, ContractFacts, CreateBusiness } from './commands.js';
import { businessEvolution, initialBusinessState, type BusinessKeyAttributes, type BusinessState } from './state.js';

/** Every 400 about the business payload, its rules and what it refers to. */
export const businessFailedValidation = (errors: readonly FieldError[]) =>
  new DomainError('business_failed_validation', 'Business data could not be validated.', { errors });

/** Spec 2.4: "uniqueness is established by the external business identifier combined with key attributes such as name, number and type". */
const KEY_ATTRIBUTES: readonly (keyof BusinessKeyAttributes)[] = ['company_name', 'siret', 'business_type'];

function alreadyExists(command: CreateBusiness, differing: readonly (keyof BusinessKeyAttributes)[]): DomainError {
  const { external_business_identifier: ext, import_supplier_code: supplier } = command.payload;
  return new DomainError(
    'business_already_exists',
    `Business ${ext} of import supplier ${supplier} already exists with different key attributes (${differing.join(', ')}).`,
    {
      errors: differing.map((attribute) => ({
        detail: `Business ${ext} already exists with a different ${attribute}.`,
        code: 'business_already_exists',
        attr: `business.${attribute}`,
      })),
    },
  );
}

/** The business a command names does not exist (404, the platform's "business not found"). */
export const businessNotFound = (importSupplier: string, externalBusinessIdentifier: string, extra?: Readonly<Record<string, unknown>>) =>
  new DomainError('business_not_found', `No business ${externalBusinessIdentifier} for import supplier ${importSupplier}.`, extra ? { extra } : {});

/** What the contracts (found at `attr` in the payload) refer to that the facts say does not exist, or is taken. */
function referenceErrors(facts: ContractFacts, supplier: string, contracts: readonly BusinessContract[], attr: string): FieldError[] {
  const taken = new Set(facts.takenContractIdentifiers);
  const products = new Set(facts.existingProductCodes);
  const contractErrors = contractIdentifierReferencesOf(contracts, attr)
    .filter((ref) => taken.has(ref.value))
    .map((ref) => ({
      detail: `A business contract with identifier ${ref.value} already exists for import supplier ${supplier}.`,
      code: 'contract_with_identifier_exists',
      attr: ref.attr,
    }));
  const productErrors = contractProductCodeReferences(contracts, attr)
    .filter((ref) => !products.has(ref.value))
    .map((ref) => ({ detail: `Product ${ref.value} does not exist.`, code: 'product_code_does_not_exist', attr: ref.attr }));
  return [...contractErrors, ...productErrors];
}

function createBusiness(command: CreateBusiness, state: BusinessState): BusinessEvent[] {
  const { payload } = command;
  if (state.status === 'created') {
    // The same business sent again is answered with the existing one; its contracts are not compared.
    const differing = KEY_ATTRIBUTES.filter((attribute) => state.key[attribute] !== payload.business[attribute]);
    if (differing.length === 0) return [];
    throw alreadyExists(command, differing);
  }
  const errors = referenceErrors(command, payload.import_supplier_code, payload.business.business_contracts, BUSINESS_CONTRACTS_ATTR);
  if (errors.length > 0) throw businessFailedValidation(errors);
  const importSupplier = payload.import_supplier_code;
  const externalBusinessIdentifier = payload.external_business_identifier;
  const { business_contracts: contracts, ...business } = payload.business;
  return [
    { type: 'BusinessCreated', version: 1, data: { importSupplier, externalBusinessIdentifier, business, createdAt: command.now } },
    ...contractsAdded(importSupplier, externalBusinessIdentifier, contracts, command.now),
  ];
}

function contractsAdded(
  importSupplier: string,
  externalBusinessIdentifier: string,
  contracts: readonly { readonly identifier: string }[],
  now: string,
): BusinessEvent[] {
  return contracts.map((contract) => ({
    type: 'BusinessContractAdded',
    version: 1,
    data: { importSupplier, externalBusinessIdentifier, identifier: contract.identifier, contract: { ...contract }, addedAt: now },
  }));
}

/**
 * Contracts added to an existing business (else 404 business_not_found): every identifier is free in the
 * supplier, the business's own included (never reused, so a repeat is refused, not ignored), and every named
 * product exists (else 400 business_failed_validation).
 */
function addBusinessContracts(command: AddBusinessContracts, state: BusinessState): BusinessEvent[] {
  const { importSupplier, externalBusinessIdentifier } = command;
  if (state.status !== 'created') throw businessNotFound(importSupplier, externalBusinessIdentifier);
  const errors = referenceErrors(command, importSupplier, command.contracts, 'business_contracts');
  if (errors.length > 0) throw businessFailedValidation(errors);
  return contractsAdded(importSupplier, externalBusinessIdentifier, command.contracts, command.now);
}

function decide(command: BusinessCommand, state: BusinessState): BusinessEvent[] {
  switch (command.type) {
    case 'CreateBusiness':
      return createBusiness(command, state);
    case 'AddBusinessContracts':
      return addBusinessContracts(command, state);
    default:
      return assertNever(command);
  }
}

export const businessDecider: Decider<BusinessCommand, BusinessEvent, BusinessEvent, BusinessState> = {
  decide,
  ...businessEvolution,
  initialState: initialBusinessState,
};
