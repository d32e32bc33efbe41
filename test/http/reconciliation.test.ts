import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { markAccountToSkip } from '../../src/application/account-import-processes.js';
import { accountRecordsLineSchema } from '../../src/export/account-records-export.js';
import { csvCellValue } from '../../src/export/csv.js';
import { reconciliationColumns } from '../../src/export/reconciliation-export.js';
import { RECORDS_CHUNK_ACCOUNTS } from '../../src/http/routes/account-records-export.js';
import { importedExampleAccount, tempDocumentStore, type TempDocumentStore } from '../support/account-records.js';
import { stageAccountsInBulk } from '../support/bulk-accounts.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/**
 * GET reconciliation/<code>/: the cut-over check, one record per account, streamed as CSV or
 * NDJSON through the real app on the test store.
 */

const EXPORT = `/v1/data-import/reconciliation/${SUPPLIER}/`;
type Record = { [column: string]: string | number | null };

/**
 * Account numbers a CSV writer must quote (a comma, a double quote, an LF, a CR+LF) or keep a
 * spreadsheet from reading as a formula (a leading =, +, -, @, and a leading ' that the rule's reader drops).
 */
const AWKWARD = ['COMMA,1', 'QUOTE"2', 'NEW\nLINE3', 'CR\r\nLF4', '"QUOTED,ALL"', '=HYPERLINK("http://x.example","y")', '+SUM5', '-MINUS6', '@AT7', "'APOS8"];
const BULK = 1_050;

let api: TestApi;
let documents: TempDocumentStore;
let token: string;

beforeAll(async () => {
  documents = tempDocumentStore();
  api = await createTestApi({ documents: documents.store });
  token = await accessToken(api);
  // LEG-0000001 imported with one note and one statement from its payload, then two notes, five
  // transactions and the historical statements example through the API.
  await importedExampleAccount(api.ledger);
  const statements = loadExample('historical-statements.json') as { statements: { statement_id: string }[] };
  statements.statements.forEach((statement, i) => (statement.statement_id = `ST-RECON-${i}`));
  for (const [path, body] of [
    ['notes/create/', loadExample('notes.json')],
    ['transactions/create/', loadExample('transactions.json')],
    ['historical-statements/create/', statements],
  ] as const) {
    const res = await api.post(`/v1/data-import/${path}`, body, token);
    expect(res.status, await res.clone().text()).toBe(201);
  }
  for (const ext of AWKWARD) {
    const res = await api.post('/v1/data-import/account-import-process/create-or-update/', { ...loadExample('account-domestic.json'), external_account_number: ext }, token);
    expect(res.status).toBe(201);
  }
  await markAccountToSkip(api.ledger, SUPPLIER, 'QUOTE"2', operator);
  // More accounts than one chunk, staged after those above.
  api.clock.advanceSeconds(60);
  await stageAccountsInBulk(
    api.ledger,
    SUPPLIER,
    Array.from({ length: BULK }, (_, i) => ({ ext: `BULK-${String(i).padStart(5, '0')}`, stagedAt: api.clock.now.toISOString(), imported: i % 10 === 0 })),
  );
}, 120_000);

afterAll(async () => {
  await api.close();
  documents.cleanup();
});

/** An RFC 4180 reader (csv-parse), independent of the writer under test: records of fields. */
const parseCsv = (text: string): string[][] => parse(text, { relax_column_count: false });

async function exportText(query: string, headers: { [name: string]: string } = {}): Promise<Response> {
  return api.app.request(`${EXPORT}${query}`, { headers: { authorization: `Token ${token}`, ...headers } });
}

async function ndjson(): Promise<Record[]> {
  const res = await exportText('?format=ndjson');
  const text = await res.text();
  expect(text.endsWith('\n')).toBe(true);
  return text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record);
}

describe('GET reconciliation/<code>/', () => {
  it('NDJSON by default: one object per account, every column, in the lists order', async () => {
    const res = await exportText('');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.headers.get('vary')).toBe('Accept');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="reconciliation-${SUPPLIER}.ndjson"`);
    const records = (await res.text()).trimEnd().split('\n').map((line) => JSON.parse(line) as Record);
    expect(records).toHaveLength(1 + AWKWARD.length + BULK);
    for (const record of records) expect(Object.keys(record)).toEqual([...reconciliationColumns]);
    // The same accounts in the same order as the all list.
    const all = (await (await api.get(`/v1/data-import/all-account-import-processes/${SUPPLIER}/`, token)).json()) as { external_account_number: string }[];
    expect(records.map((r) => r['external_account_number'])).toEqual(all.map((item) => item.external_account_number));
  });

  it('shows state, numbers, transfer status, times, counts and balance as the projections hold them', async () => {
    const byExt = new Map((await ndjson()).map((r) => [r['external_account_number'], r]));
    const imported = byExt.get('LEG-0000001')!;
    const [ledger] = await api.execute(`SELECT balance_cents, transaction_count FROM account_ledgers WHERE external_account_number = 'LEG-0000001'`);
    const [notes] = await api.execute(`SELECT count(*) AS n FROM account_notes WHERE external_account_number = 'LEG-0000001'`);
    const [statements] = await api.execute(`SELECT count(*) AS n FROM account_historical_statements WHERE external_account_number = 'LEG-0000001'`);
    expect(imported).toEqual({
      external_account_number: 'LEG-0000001',
      state: 'imported',
      platform_account_number: expect.stringMatching(/^A-[0-9A-F]{8}$/),
      transfer_status: 'PENDING',
      first_staged_at: '2026-11-21T10:00:00Z',
      account_created_at: '2026-11-21T10:00:00Z',
      note_count: 3,
      transaction_count: 5,
      historical_statement_count: 3,
      // 35.20 charged - 10.00 credited - 64.50 paid + 5.00 repaid + 26.18 supply charge.
      ledger_balance: '-8.12',
    });
    expect({ notes: Number(notes!['n']), transactions: Number(ledger!['transaction_count']), balance: Number(ledger!['balance_cents']) }).toEqual({
      notes: 3,
      transactions: 5,
      balance: -812,
    });
    expect(Number(statements!['n'])).toBe(3);
    expect(byExt.get('COMMA,1')).toMatchObject({ state: 'pending', platform_account_number: null, transfer_status: 'UNKNOWN', account_created_at: null, note_count: 0, transaction_count: 0, historical_statement_count: 0, ledger_balance: '0.00' });
    expect(byExt.get('QUOTE"2')).toMatchObject({ state: 'skipped', transfer_status: 'UNKNOWN', platform_account_number: null });
    expect(byExt.get('BULK-00000')).toMatchObject({ state: 'imported', transfer_status: 'PENDING', note_count: 1 });
    expect(byExt.get('BULK-00001')).toMatchObject({ state: 'pending', note_count: 0 });
  });

  it.each([
    ['Accept: text/csv', '', { accept: 'text/csv' }],
    ['Accept listing text/csv among others', '', { accept: 'application/json;q=0.5, text/csv' }],
    ['?format=csv (whatever Accept says)', '?format=csv', { accept: 'application/x-ndjson' }],
  ])('CSV with %s: header, CRLF records, RFC 4180 quoting; the same values as NDJSON', async (_how, query, headers) => {
    const res = await exportText(query, headers);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="reconciliation-${SUPPLIER}.csv"`);
    const text = await res.text();
    expect(text.startsWith(`${reconciliationColumns.join(',')}\r\n`)).toBe(true);
    const [header, ...rows] = parseCsv(text).map((record) => record.map(csvCellValue));
    expect(header).toEqual([...reconciliationColumns]);
    const expected = (await ndjson()).map((record) => reconciliationColumns.map((column) => (record[column] === null ? '' : String(record[column]))));
    expect(rows).toEqual(expected);
  });

  it('CSV quotes commas, quotes and newlines, escapes formula-leading cells with a \', and leaves numbers (-8.12) as they are', async () => {
    const text = await (await exportText('?format=csv')).text();
    expect(text).toContain('\r\n"COMMA,1",pending,,UNKNOWN,');
    expect(text).toContain('\r\n"QUOTE""2",skipped,,UNKNOWN,');
    expect(text).toContain('\r\n"NEW\nLINE3",pending,');
    expect(text).toContain('\r\n"CR\r\nLF4",pending,');
    expect(text).toContain('\r\n"""QUOTED,ALL""",pending,');
    expect(text).toContain('\r\n"\'=HYPERLINK(""http://x.example"",""y"")",pending,');
    expect(text).toContain("\r\n'+SUM5,pending,");
    expect(text).toContain("\r\n'-MINUS6,pending,");
    expect(text).toContain("\r\n'@AT7,pending,");
    expect(text).toContain("\r\n''APOS8,pending,");
    expect(text).toMatch(/\r\nLEG-0000001,imported,A-[0-9A-F]{8},PENDING,2026-11-21T10:00:00Z,2026-11-21T10:00:00Z,3,5,3,-8\.12\r\n/);
  });

  it('a supplier without accounts: the CSV header alone, an empty NDJSON body', async () => {
    const otherToken = await accessToken(api, api.otherKey);
    const path = `/v1/data-import/reconciliation/${OTHER_SUPPLIER}/`;
    const csv = await api.app.request(`${path}?format=csv`, { headers: { authorization: `Token ${otherToken}` } });
    expect(await csv.text()).toBe(`${reconciliationColumns.join(',')}\r\n`);
    const lines = await api.app.request(path, { headers: { authorization: `Token ${otherToken}` } });
    expect(lines.status).toBe(200);
    expect(await lines.text()).toBe('');
  });

  it.each([
    ['?format=xml', 'invalid_choice'],
    ['?format=', 'invalid_choice'],
    ['?format=CSV', 'invalid_choice'],
    ['?format=csv&format=ndjson', 'invalid'],
  ])('%s: 400 invalid_query_parameter at attr format', async (query, itemCode) => {
    const body = await expectErrorBody(await exportText(query), 400, 'invalid_query_parameter');
    expect(body.errors.map((e) => [e.attr, e.code])).toEqual([['format', itemCode]]);
  });

  it('another supplier, existing or not, is 403 permission_denied', async () => {
    for (const supplier of [OTHER_SUPPLIER, 'NO_SUCH_SUPPLIER']) {
      for (const query of ['', '?format=csv', '?format=xml']) {
        await expectErrorBody(await api.get(`/v1/data-import/reconciliation/${supplier}/${query}`, token), 403, 'permission_denied');
      }
    }
  });
});

describe('GET account-records/<code>/ (what verify reads) over several chunks', () => {
  it('answers every account once, in the lists order, with its records, a bounded chunk of accounts a part', async () => {
    const res = await api.app.request(`/v1/data-import/account-records/${SUPPLIER}/`, { headers: { authorization: `Token ${token}` } });
    expect(res.status).toBe(200);
    // Each part the stream hands over is one chunk of accounts, read and digested without giving the event loop back.
    const parts: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) parts.push(decoder.decode(chunk));
    const lines = parts
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => accountRecordsLineSchema.parse(JSON.parse(line)));
    const accounts = (await ndjson()).map((record) => record['external_account_number']);
    expect(lines.map((line) => line.external_account_number)).toEqual(accounts);
    const full = Math.floor(accounts.length / RECORDS_CHUNK_ACCOUNTS);
    expect(parts.map((part) => part.trimEnd().split('\n').length)).toEqual([
      ...Array.from({ length: full }, () => RECORDS_CHUNK_ACCOUNTS),
      accounts.length - full * RECORDS_CHUNK_ACCOUNTS,
    ]);
    const byExt = new Map(lines.map((line) => [line.external_account_number, line]));
    expect(byExt.get('LEG-0000001')!.counts).toEqual({ notes: 3, transactions: 5, statements: 3, payment_instructions: 0 });
    expect(byExt.get('BULK-00000')!.counts).toMatchObject({ notes: 1, transactions: 0 });
    expect(byExt.get('BULK-00001')!.counts).toMatchObject({ notes: 0, transactions: 0 });
  });
});
