import { Command } from 'commander';
import { transferStatuses, type TransferStatus } from '../../events/account-import-process.js';
import { cancelAccountCreation } from '../application/account-creations.js';
import { changeTransferStatus, markAccountToSkip } from '../application/account-import-processes.js';
import { info, oneOf, operatorActor, withLedger } from './context.js';
import { historyCommand } from './history-commands.js';

const settableStatuses = transferStatuses.filter((s) => s !== 'UNKNOWN');

export function accountCommand(): Command {
  const account = new Command('account').description('operator actions on account import processes');
  account
    .command('skip')
    .description('mark a staged account to be skipped: it can no longer be staged or processed')
    .argument('<SUPPLIER>', 'import supplier code')
    .argument('<EXTERNAL_ACCOUNT_NUMBER>', 'the account number in the legacy system')
    .action(async (supplier: string, ext: string) => {
      const changed = await withLedger((ledger) => markAccountToSkip(ledger, supplier, ext, operatorActor()), supplier);
      info(changed ? `account ${supplier}/${ext} marked to skip` : `account ${supplier}/${ext} was already marked to skip`);
    });
  account
    .command('set-transfer-status')
    .description('move an imported account\'s transfer status: PENDING -> IN_PROGRESS -> COMPLETED or REJECTED; REJECTED -> IN_PROGRESS')
    .argument('<SUPPLIER>', 'import supplier code')
    .argument('<EXTERNAL_ACCOUNT_NUMBER>', 'the account number in the legacy system')
    .argument('<STATUS>', settableStatuses.join(', '), oneOf(settableStatuses))
    .action(async (supplier: string, ext: string, status: TransferStatus) => {
      await withLedger((ledger) => changeTransferStatus(ledger, supplier, ext, status, operatorActor()), supplier);
      info(`account ${supplier}/${ext} transfer status is now ${status}`);
    });
  account
    .command('cancel-creation')
    .description('cancel the account\'s v2 scheduled creation that has not run yet: its status becomes CANCELLED and it never runs')
    .argument('<SUPPLIER>', 'import supplier code')
    .argument('<EXTERNAL_ACCOUNT_NUMBER>', 'the account number in the legacy system')
    .action(async (supplier: string, ext: string) => {
      const taskId = await withLedger((ledger) => cancelAccountCreation(ledger, supplier, ext, operatorActor()), supplier);
      info(`scheduled creation ${taskId} of account ${supplier}/${ext} cancelled`);
    });
  historyCommand(account);
  return account;
}
