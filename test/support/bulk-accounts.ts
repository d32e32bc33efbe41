import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { commandMetadata } from '../../src/application/command-handler.js';
import type { LedgerContext } from '../../src/application/context.js';
import type { AccountImportProcessCommand } from '../../src/domain/account-import-process/commands.js';
import { accountImportProcessDecider } from '../../src/domain/account-import-process/decider.js';
import { examplePayload } from './account-records.js';
import { TEAM, operator } from './ledger.js';

/** Commands per unit of work: big enough to be quick, small enough to keep one transaction modest. */
const UNIT = 500;

export interface BulkAccount {
  readonly ext: string;
  /** When it was first staged (ISO instant): accounts may share one, as accounts staged in the same millisecond do. */
  readonly stagedAt: string;
  /** Processed after staging (imported), at `stagedAt`. */
  readonly imported?: boolean;
}

/**
 * Stages (and processes, where asked) many accounts of `supplier` through
 * the event store, `UNIT` commands per unit of work: the real decider,
 * events and inline projections of the HTTP path, without paying for one
 * request per account. The supplier and the team must exist; the payload is
 * the domestic example with the account's number.
 */
export async function stageAccountsInBulk(ledger: LedgerContext, supplier: string, accounts: readonly BulkAccount[]): Promise<void> {
  const payload = examplePayload({ import_supplier: supplier });
  const stage = accounts.map(
    (account): AccountImportProcessCommand => ({
      type: 'StageAccount',
      importSupplier: supplier,
      externalAccountNumber: account.ext,
      payload: { ...payload, external_account_number: account.ext },
      supplierStatus: 'Ongoing',
      now: account.stagedAt,
    }),
  );
  const process = accounts
    .filter((account) => account.imported)
    .map(
      (account): AccountImportProcessCommand => ({
        type: 'ProcessAccount',
        importSupplier: supplier,
        externalAccountNumber: account.ext,
        operationsTeamName: TEAM,
        operationsTeamExists: true,
        supplierStatus: 'Ongoing',
        referenceErrors: [],
        platformAccountNumber: ledger.ids.platformAccountNumber(),
        now: account.stagedAt,
      }),
    );
  for (const commands of [stage, process]) {
    for (let i = 0; i < commands.length; i += UNIT) {
      await ledger.store.handleMany(
        commands.slice(i, i + UNIT).map((command) => ({
          streamId: accountImportProcessStreamId(supplier, command.externalAccountNumber),
          decider: accountImportProcessDecider,
          command,
        })),
        { metadata: commandMetadata(ledger, operator) },
      );
    }
  }
}
