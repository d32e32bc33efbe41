import { validateAccountPayload, type AccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import { loadExample } from '../../support/ledger.js';

type Customers = Record<string, unknown>[];

/** account-domestic.json, validated, with its customers optionally replaced. */
export function examplePayloadOf(customers?: (original: Customers) => unknown[]): AccountPayload {
  const raw = loadExample('account-domestic.json');
  const input = customers ? { ...raw, customers: customers(raw['customers'] as Customers) } : raw;
  const validated = validateAccountPayload(input);
  if (!validated.ok) throw new Error(`example must validate: ${JSON.stringify(validated.errors)}`);
  return validated.data;
}
