import { processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import type { LedgerContext } from '../../src/application/context.js';
import { validateAccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { loadExample, operator, TEAM } from '../support/ledger.js';

export const EXT = 'LEG-0000001';
export const CLAIRE = 'claire.dubois@example.fr';
export const LEA = 'lea.dubois@example.fr';
export const mailerActor = { actor: 'system:mailer', requestId: null };

/** account-domestic.json with three customers: Claire and Léa have an email address, Paul has none. */
export function welcomePayload(supplier: string, ext = EXT) {
  const raw = loadExample('account-domestic.json');
  const [claire] = raw['customers'] as Record<string, unknown>[];
  const customers = [claire, { ...claire, given_name: 'Paul', email: undefined }, { ...claire, given_name: 'Léa', email: LEA }];
  const validated = validateAccountPayload({ ...raw, import_supplier: supplier, external_account_number: ext, customers });
  if (!validated.ok) throw new Error(`example must validate: ${JSON.stringify(validated.errors)}`);
  return validated.data;
}

/** Stages and processes the welcome payload: two welcome emails queued when the supplier sends emails. */
export async function importWelcomeAccount(ledger: LedgerContext, supplier: string, options: { dryRun?: boolean; ext?: string } = {}) {
  const ext = options.ext ?? EXT;
  await stageAccount(ledger, welcomePayload(supplier, ext), operator);
  return processAccount(
    ledger,
    { importSupplier: supplier, externalAccountNumber: ext, operationsTeamName: TEAM, dryRun: options.dryRun ?? false },
    operator,
  );
}
