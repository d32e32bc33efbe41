import { z } from 'zod';
import type { core } from 'zod';
import { contractSchema } from '../account-import-process/account-payload-contracts.js';
import { addDomainIssue, requiredText, siret, whenClean } from '../account-import-process/payload-fields.js';
import { noRepeatedKeys, validateWith, type Validation } from '../validation/field-errors.js';

/**
 * The business-create payload (spec 2.4, contracts 2.3); unknown fields are dropped (spec 2.1). Whether the
 * named products exist and the contract identifiers are free are facts, checked by the business decider.
 */

type Ctx = core.$RefinementCtx<unknown>;

/** A version cannot apply before the contract itself is valid. Dates are valid ISO dates, so strings compare as dates. */
function checkVersionDates(contract: z.output<typeof contractSchema>, ctx: Ctx): void {
  contract.versions.forEach((version, index) => {
    if (version.applicable_at_date < contract.valid_from_date) {
      addDomainIssue(
        ctx,
        'version_applicable_before_contract_valid_from',
        `applicable_at_date ${version.applicable_at_date} is before the contract's valid_from_date ${contract.valid_from_date}.`,
        ['versions', index, 'applicable_at_date'],
      );
    }
  });
}

/**
 * Runs the date rule once valid_from_date and every applicable_at_date are valid, even if a term is broken:
 * no issue on the contract, those fields, the versions list or one of its versions.
 */
const whenDatesClean = {
  when: (payload: core.ParsePayload): boolean =>
    !payload.issues.some(
      ({ path = [] }) =>
        path.length === 0 || path[0] === 'valid_from_date' || (path[0] === 'versions' && (path.length <= 2 || path[2] === 'applicable_at_date')),
    ),
};

export const businessContractSchema = contractSchema.superRefine(checkVersionDates, whenDatesClean);

export const checkContractIdentifiersUnique = noRepeatedKeys(
  (contract: { identifier: string }) => contract.identifier,
  'duplicate_contract_identifiers',
  (identifier) => `Contract identifier ${identifier} appears more than once.`,
  (index) => [index, 'identifier'],
);

const checkDetailKeysUnique = noRepeatedKeys(
  (detail: { key: string }) => detail.key,
  'children_with_duplicate_values',
  (key) => `Detail key ${key} appears more than once.`,
  (index) => [index, 'key'],
);

/** Identifiers are compared once the list, each contract and each identifier are valid; the other contracts' errors are reported alongside. */
export const whenIdentifiersClean = {
  when: (payload: core.ParsePayload): boolean => !payload.issues.some(({ path = [] }) => path.length <= 1 || path[1] === 'identifier'),
};

export const businessSchema = z.object({
  business_type: requiredText(64),
  company_name: requiredText(255),
  siret: siret(),
  details: z
    .array(z.object({ key: requiredText(), value: z.string() }))
    .superRefine(checkDetailKeysUnique, whenClean([]))
    .optional(),
  business_contracts: z.array(businessContractSchema).superRefine(checkContractIdentifiersUnique, whenIdentifiersClean),
});

export const businessPayloadSchema = z.object({
  import_supplier_code: requiredText(64),
  external_business_identifier: requiredText(128),
  business: businessSchema,
});

export type BusinessPayload = z.output<typeof businessPayloadSchema>;
export type BusinessContract = BusinessPayload['business']['business_contracts'][number];

export const validateBusinessPayload = (input: unknown): Validation<BusinessPayload> => validateWith(businessPayloadSchema, input);
