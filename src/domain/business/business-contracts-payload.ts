import { z } from 'zod';
import { requiredText } from '../account-import-process/payload-fields.js';
import { validateWith, type Validation } from '../validation/field-errors.js';
import { businessContractSchema, checkContractIdentifiersUnique, whenIdentifiersClean } from './business-payload.js';

/**
 * The business-contracts/create/ payload (the platform's endpoint): contracts added to an existing business,
 * with the schema and rules of business/'s contracts (spec 2.3). What they refer to is checked by the decider.
 */
export const businessContractsPayloadSchema = z.object({
  import_supplier_code: requiredText(64),
  external_business_identifier: requiredText(128),
  /** At least one: a request that adds nothing is a mistake, not a repeat. */
  business_contracts: z.array(businessContractSchema).min(1).max(1000).superRefine(checkContractIdentifiersUnique, whenIdentifiersClean),
});

export type BusinessContractsPayload = z.output<typeof businessContractsPayloadSchema>;

export const validateBusinessContractsPayload = (input: unknown): Validation<BusinessContractsPayload> =>
  validateWith(businessContractsPayloadSchema, input);
