import type { HistoricalStatementImported, RecordSource } from '../../../events/account-records.js';
import type { LedgerEvent } from '../../../events/registry.js';
import type { Decider } from '../decider.js';
import {
  accountRecordsEvolution,
  initialAccountFacts,
  requireImportedAccount,
  type AccountRecordsState,
  type AccountRecordCommandBase,
  accountOf,
  type AccountRef,
} from '../account-records/account-stream.js';
import { pathDoesNotExist } from '../account-records/documents.js';
import { DomainError, type FieldError } from '../errors.js';
import type { StatementInput } from './statement-payload.js';

/** historical-statements/create/ (spec 4.11): the validated statements, in request order. */
export interface ImportHistoricalStatements extends AccountRecordCommandBase {
  readonly type: 'ImportHistoricalStatements';
  readonly statements: readonly StatementInput[];
  /** Fact: the statement paths of these statements that exist in the supplier's document root. */
  readonly existingDocumentPaths: ReadonlySet<string>;
}

export type StatementsState = AccountRecordsState<{ readonly statementIds: ReadonlySet<string> }>;

const statementsEvolution = accountRecordsEvolution<StatementsState, HistoricalStatementImported, { readonly statementIds: Set<string> }>(
  (state) => ({ account: state.account, statementIds: new Set(state.statementIds) }),
  { HistoricalStatementImported: (state, event) => state.statementIds.add(event.data.statementId) },
);

export const historicalStatementsFailedValidation = (errors: readonly FieldError[]) =>
  new DomainError('historical_statements_failed_validation', 'Historical statement data could not be validated.', { errors });

function decide(command: ImportHistoricalStatements, state: StatementsState): HistoricalStatementImported[] {
  requireImportedAccount(state.account, command);
  const errors: FieldError[] = [];
  command.statements.forEach((statement, i) => {
    if (state.statementIds.has(statement.statement_id)) {
      errors.push({
        detail: `Statement ${statement.statement_id} already exists on account ${command.externalAccountNumber}.`,
        code: 'historical_statement_already_exists',
        attr: `statements.${i}.statement_id`,
      });
    }
    if (statement.statement_path !== undefined && !command.existingDocumentPaths.has(statement.statement_path)) {
      errors.push(pathDoesNotExist(statement.statement_path, `statements.${i}.statement_path`));
    }
  });
  if (errors.length > 0) throw historicalStatementsFailedValidation(errors);
  return command.statements.map((statement) => statementImported(command, statement, 'import_request'));
}

/** The statement as recorded; one of the staged payload has only its period, id and path. */
export function statementImported(account: AccountRef, statement: StatementInput, source: RecordSource): HistoricalStatementImported {
  return {
    type: 'HistoricalStatementImported',
    version: 1,
    data: {
      ...accountOf(account),
      statementId: statement.statement_id,
      billPeriodFromDate: statement.bill_period_from_date,
      billPeriodToDate: statement.bill_period_to_date,
      issuedDate: statement.issued_date ?? null,
      number: statement.number ?? null,
      grossAmountCents: statement.gross_amount ?? null,
      statementPath: statement.statement_path ?? null,
      source,
      importedAt: account.now,
    },
  };
}

export const statementsDecider: Decider<ImportHistoricalStatements, LedgerEvent, HistoricalStatementImported, StatementsState> = {
  decide,
  ...statementsEvolution,
  initialState: { account: initialAccountFacts, statementIds: new Set() },
};
