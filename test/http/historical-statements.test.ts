import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { stageAccount } from '../../src/application/account-import-processes.js';
import { setImportSupplierStatus } from '../../src/application/operator.js';
import { examplePayload, importedExampleAccount, tempDocumentStore, type TempDocumentStore } from '../support/account-records.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { SUPPLIER, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/** Spec 4.11 through the real app over a temp-file SQLite database and a temp document store. */

const STATEMENTS = '/v1/data-import/historical-statements/create/';
const EXT = 'LEG-0000001';
type Json = any;
const example = (): Json => structuredClone(loadExample('historical-statements.json'));
/** The domestic example without its staged statements (which process would record, taking ST-2025-05-0000001). */
const withoutStagedStatements = { statements: undefined };

let api: TestApi;
let documents: TempDocumentStore;
let token: string;

beforeEach(async () => {
  documents = tempDocumentStore();
  api = await createTestApi({ documents: documents.store });
  token = await accessToken(api);
});

afterEach(() => {
  api.close();
  documents.cleanup();
});

const streamVersion = () => api.ledger.store.streamVersion(accountImportProcessStreamId(SUPPLIER, EXT));

async function codes(res: Response): Promise<{ code: string; attr: string | null }[]> {
  const body = await expectErrorBody(res, 400, 'historical_statements_failed_validation');
  return body.errors.map((e) => ({ code: e.code, attr: e.attr }));
}

describe('POST historical-statements/create/ (spec 4.11)', () => {
  it('records the example statements: 201 with the validated data, kept in the statements projection', async () => {
    await importedExampleAccount(api.ledger, withoutStagedStatements);
    const sent = { ...example(), unknown_field: 'dropped' };
    const res = await api.post(STATEMENTS, sent, token);
    expect(res.status).toBe(201);
    expect(await res.json()).toStrictEqual(example());
    const rows = await api.ledger.read.listHistoricalStatements(SUPPLIER, EXT);
    expect(rows.map((r) => [r.statementId, r.billPeriodToDate, r.grossAmountCents, r.statementPath, r.source])).toEqual([
      ['ST-2025-04-0000001', '2025-04-30', 7140, 'statements/LEG-0000001/2025-04.pdf', 'import_request'],
      ['ST-2025-05-0000001', '2025-05-31', 6890, null, 'import_request'],
    ]);
  });

  it('the platform\'s deprecated account_number may name the account; the answer names it as external_account_number', async () => {
    await importedExampleAccount(api.ledger, withoutStagedStatements);
    const { external_account_number: _ext, ...withoutExt } = example();
    const res = await api.post(STATEMENTS, { ...withoutExt, account_number: EXT }, token);
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toStrictEqual(example());
    expect((await api.ledger.read.listHistoricalStatements(SUPPLIER, EXT)).map((r) => r.statementId)).toEqual(['ST-2025-04-0000001', 'ST-2025-05-0000001']);
  });

  it('gross_amount may be sent as a decimal string: the same cents, answered as the number', async () => {
    await importedExampleAccount(api.ledger, withoutStagedStatements);
    const sent = example();
    sent.statements[0].gross_amount = '71.40';
    sent.statements[1].gross_amount = '68.9';
    const res = await api.post(STATEMENTS, sent, token);
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toStrictEqual(example());
    expect((await api.ledger.read.listHistoricalStatements(SUPPLIER, EXT)).map((r) => r.grossAmountCents)).toEqual([7140, 6890]);
  });

  it('the staged payload\'s statement is recorded at process time: the example then repeats its statement_id (400, nothing written)', async () => {
    await importedExampleAccount(api.ledger);
    expect((await api.ledger.read.listHistoricalStatements(SUPPLIER, EXT)).map((r) => [r.statementId, r.source])).toEqual([
      ['ST-2025-05-0000001', 'staged_payload'],
    ]);
    const version = await streamVersion();
    expect(await codes(await api.post(STATEMENTS, example(), token))).toEqual([
      { code: 'historical_statement_already_exists', attr: 'statements.1.statement_id' },
    ]);
    expect(await streamVersion()).toBe(version);
  });

  it('sending the example twice: the second is historical_statement_already_exists for both', async () => {
    await importedExampleAccount(api.ledger, withoutStagedStatements);
    expect((await api.post(STATEMENTS, example(), token)).status).toBe(201);
    expect(await codes(await api.post(STATEMENTS, example(), token))).toEqual([
      { code: 'historical_statement_already_exists', attr: 'statements.0.statement_id' },
      { code: 'historical_statement_already_exists', attr: 'statements.1.statement_id' },
    ]);
  });

  it.each([
    ['from after to', { bill_period_from_date: '2025-05-01', bill_period_to_date: '2025-04-30' }, 'start_date_later_than_end_date', 'statements.0.bill_period_to_date'],
    ['no bill_period_to_date', { bill_period_to_date: undefined }, 'required', 'statements.0.bill_period_to_date'],
    ['a blank number', { number: '' }, 'blank', 'statements.0.number'],
    ['gross_amount with 3 decimals', { gross_amount: 71.401 }, 'max_decimal_places', 'statements.0.gross_amount'],
    ['a statement_path missing from the store', { statement_path: 'statements/LEG-0000001/2025-03.pdf' }, 'path_does_not_exist_in_file_store', 'statements.0.statement_path'],
    ['a statement_path leaving the root', { statement_path: 'statements/../../outside.pdf' }, 'path_does_not_exist_in_file_store', 'statements.0.statement_path'],
    ['a blank statement_id', { statement_id: ' ' }, 'blank', 'statements.0.statement_id'],
  ])('%s: 400 historical_statements_failed_validation, nothing written', async (_name, change, code, attr) => {
    await importedExampleAccount(api.ledger, withoutStagedStatements);
    const version = await streamVersion();
    const payload = example();
    payload.statements[0] = { ...payload.statements[0], ...change };
    expect(await codes(await api.post(STATEMENTS, payload, token))).toEqual([{ code, attr }]);
    expect(await streamVersion()).toBe(version);
  });

  it('issued_date, number and gross_amount may be left out or null, as on the platform: 201, kept as null', async () => {
    await importedExampleAccount(api.ledger, withoutStagedStatements);
    const payload = example();
    const [first, second] = payload.statements;
    payload.statements = [
      { bill_period_from_date: first.bill_period_from_date, bill_period_to_date: first.bill_period_to_date, statement_id: first.statement_id, statement_path: first.statement_path },
      { ...second, issued_date: null, number: null, gross_amount: null },
    ];
    const res = await api.post(STATEMENTS, payload, token);
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toStrictEqual(payload);
    const rows = await api.ledger.read.listHistoricalStatements(SUPPLIER, EXT);
    expect(rows.map((r) => [r.statementId, r.issuedDate, r.number, r.grossAmountCents])).toEqual([
      [first.statement_id, null, null, null],
      [second.statement_id, null, null, null],
    ]);
  });

  it('a statement_id repeated inside one request: duplicate_statement_ids', async () => {
    await importedExampleAccount(api.ledger, withoutStagedStatements);
    const payload = example();
    payload.statements[1].statement_id = payload.statements[0].statement_id;
    expect(await codes(await api.post(STATEMENTS, payload, token))).toEqual([{ code: 'duplicate_statement_ids', attr: 'statements.1.statement_id' }]);
  });

  it('a staged-only or unknown account: 404 account_not_found; a supplier not Ongoing: 400; another supplier\'s key: 403', async () => {
    await stageAccount(api.ledger, examplePayload(), operator);
    await expectErrorBody(await api.post(STATEMENTS, example(), token), 404, 'account_not_found');
    await expectErrorBody(await api.post(STATEMENTS, { ...example(), external_account_number: 'NOPE' }, token), 404, 'account_not_found');
    await importedExampleAccount(api.ledger, { ...withoutStagedStatements, external_account_number: 'LEG-0000002' });
    await setImportSupplierStatus(api.ledger, SUPPLIER, 'Paused', operator);
    await expectErrorBody(
      await api.post(STATEMENTS, { ...example(), external_account_number: 'LEG-0000002' }, token),
      400,
      'import_supplier_migration_not_ongoing',
    );
    await expectErrorBody(await api.post(STATEMENTS, example(), await accessToken(api, api.otherKey)), 403, 'permission_denied');
  });
});
