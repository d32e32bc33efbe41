import { changeTransferStatus, processAccount, stageAccount } from '../../../src/application/account-import-processes.js';
import { createImportSupplier, createOperationsTeam } from '../../../src/application/operator.js';
import { validateAccountPayload, type AccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import type { Ledger } from '../../../src/ledger.js';
import { loadExample, operator, SUPPLIER, TEAM } from '../../support/ledger.js';
import { createExampleProducts } from '../../support/products.js';

const base = validateAccountPayload(loadExample('account-domestic.json'));
if (!base.ok) throw new Error('example must validate');

export const payloadFor = (ext: string, channel: string): AccountPayload => ({ ...base.data, external_account_number: ext, sales_channel: channel });

/** A supplier, a team, the example products, and `accounts` accounts staged, some re-staged, some processed with a transfer. */
export async function seedAccounts(ledger: Ledger, accounts: number): Promise<void> {
  await createImportSupplier(ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  await createOperationsTeam(ledger, TEAM, operator);
  await createExampleProducts(ledger);
  for (let i = 0; i < accounts; i++) {
    const ext = `ACC-${i}`;
    await stageAccount(ledger, payloadFor(ext, 'WEB'), operator);
    if (i % 2 === 0) await stageAccount(ledger, payloadFor(ext, 'PHONE'), operator);
    if (i % 3 !== 0) {
      await processAccount(ledger, { importSupplier: SUPPLIER, externalAccountNumber: ext, operationsTeamName: TEAM, dryRun: false }, operator);
      await changeTransferStatus(ledger, SUPPLIER, ext, 'IN_PROGRESS', operator);
    }
  }
}
