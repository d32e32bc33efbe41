import type { Actor } from './application/context.js';
import { createApiKey, createImportSupplier, createOperationsTeam } from './application/operator.js';
import { DomainError } from './domain/errors.js';
import type { Ledger } from './ledger.js';

export const DEMO_SUPPLIER = 'DEMO';
export const DEMO_TEAM = 'Migrations';

/** First run outside production: a demo supplier, team and key, so the service can be tried at once. Null when the log held events. */
export async function seedDemoData(ledger: Ledger): Promise<{ key: string; keyId: string } | null> {
  if (!(await ledger.store.isEmpty())) return null;
  const actor: Actor = { actor: 'system:first-run', requestId: null };
  try {
    await createImportSupplier(ledger, { code: DEMO_SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, actor);
  } catch (error) {
    // Several instances started together on a new shared database: another one is seeding it.
    if (error instanceof DomainError && error.code === 'import_supplier_already_exists') return null;
    throw error;
  }
  await createOperationsTeam(ledger, DEMO_TEAM, actor);
  return createApiKey(ledger, { suppliers: [DEMO_SUPPLIER], label: 'demo key (first run)' }, actor);
}
