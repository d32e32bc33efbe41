import { validateBusinessPayload, type BusinessPayload } from '../../../src/domain/business/business-payload.js';
import { loadExample } from '../../support/ledger.js';

/** Loosely typed on purpose: the tests break payloads in ways the payload type forbids. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type BusinessInput = any;

const EXAMPLE = loadExample('business.json');

/** A fresh deep copy of test/fixtures/examples/business.json, safe to mutate. */
export function businessExample(): BusinessInput {
  return structuredClone(EXAMPLE);
}

/** The example (or a variant) after validation: what a CreateBusiness command carries. */
export function validBusiness(input: BusinessInput = businessExample()): BusinessPayload {
  const result = validateBusinessPayload(input);
  if (!result.ok) throw new Error(`payload must validate: ${JSON.stringify(result.errors)}`);
  return result.data;
}

/** The example's only product code (named by its rate override and its eligibility term). */
export const EXAMPLE_PRODUCT = 'ELEC-FIXE-2025';
export const EXAMPLE_CONTRACT = 'CTR-2025-000123';
