import { describe, expect, it } from 'vitest';
import { statementsDecider as decider, type ImportHistoricalStatements } from '../../../src/domain/statements/decider.js';
import type { StatementInput } from '../../../src/domain/statements/statement-payload.js';
import { given } from '../../support/given.js';
import { base, imported, noteCreated, staged, statementImported } from '../account-records-fixtures.js';

const statement = (id: string, path?: string): StatementInput => ({
  bill_period_from_date: '2025-04-01',
  bill_period_to_date: '2025-04-30',
  statement_id: id,
  issued_date: '2025-05-03',
  number: 'F2025-04-0001',
  gross_amount: 7140,
  ...(path === undefined ? {} : { statement_path: path }),
});

const importStatements = (statements: StatementInput[], extra: Partial<ImportHistoricalStatements> = {}): ImportHistoricalStatements => ({
  type: 'ImportHistoricalStatements',
  ...base,
  statements,
  existingDocumentPaths: new Set(['statements/2025-04.pdf']),
  ...extra,
});

const recorded = (id: string, path: string | null = null) => {
  const event = statementImported(id, '2025-04-01', '2025-04-30');
  return { ...event, data: { ...event.data, issuedDate: '2025-05-03', number: 'F2025-04-0001', grossAmountCents: 7140, statementPath: path } };
};

describe('historical statements decider (spec 4.11)', () => {
  it('the account must be imported; the supplier Ongoing', () => {
    given(decider, [staged()]).when(importStatements([statement('S1')])).thenFails('account_not_found');
    given(decider, imported).when(importStatements([statement('S1')], { supplierStatus: 'Paused' })).thenFails('import_supplier_migration_not_ongoing');
  });

  it('records every statement of the request', () => {
    given(decider, imported)
      .when(importStatements([statement('S1', 'statements/2025-04.pdf'), statement('S2')]))
      .then([recorded('S1', 'statements/2025-04.pdf'), recorded('S2')]);
  });

  it('statement_id is unique per account, including the statements the staged payload brought', () => {
    const history = [...imported, statementImported('S1', '2025-03-01', '2025-03-31', 'staged_payload'), noteCreated(1, 'x', '2025-01-01T00:00:00Z')];
    const error = given(decider, history).when(importStatements([statement('S2'), statement('S1')])).thenFails('historical_statements_failed_validation');
    expect(error.errors.map((e) => [e.code, e.attr])).toEqual([['historical_statement_already_exists', 'statements.1.statement_id']]);
  });

  it('statement_path, when given, must exist in the document store', () => {
    const error = given(decider, imported).when(importStatements([statement('S1', 'statements/nope.pdf')])).thenFails('historical_statements_failed_validation');
    expect(error.errors.map((e) => [e.code, e.attr])).toEqual([['path_does_not_exist_in_file_store', 'statements.0.statement_path']]);
  });
});
