import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDS_CHUNK_ACCOUNTS } from '../../src/http/routes/account-records-export.js';
import { accountRecordsLineSchema, type AccountRecordsLine } from '../../src/export/account-records-export.js';
import { importedExampleAccount, tempDocumentStore, type TempDocumentStore } from '../support/account-records.js';
import { stageAccountsInBulk } from '../support/bulk-accounts.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, createTestApi, loadExample, type TestApi } from '../support/ledger.js';

/**
 * GET account-records/<code>/ (what `import-ledger verify` reads) over more accounts than one chunk: every
 * account once, in the lists' order, each with its own records, read a bounded chunk of accounts at a time.
 */

const BULK = 2 * RECORDS_CHUNK_ACCOUNTS + 50;

let api: TestApi;
let documents: TempDocumentStore;
let token: string;

beforeAll(async () => {
  documents = tempDocumentStore();
  api = await createTestApi({ documents: documents.store });
  token = await accessToken(api);
  // LEG-0000001 first, with the notes and transactions examples on top of its payload's note and statement.
  await importedExampleAccount(api.ledger);
  for (const [path, body] of [
    ['notes/create/', loadExample('notes.json')],
    ['transactions/create/', loadExample('transactions.json')],
  ] as const) {
    const res = await api.post(`/v1/data-import/${path}`, body, token);
    expect(res.status, await res.clone().text()).toBe(201);
  }
  api.clock.advanceSeconds(60);
  await stageAccountsInBulk(
    api.ledger,
    SUPPLIER,
    Array.from({ length: BULK }, (_, i) => ({ ext: `BULK-${String(i).padStart(5, '0')}`, stagedAt: api.clock.now.toISOString(), imported: i % 2 === 0 })),
  );
}, 120_000);

afterAll(async () => {
  await api.close();
  documents.cleanup();
});

describe('GET account-records/<code>/ over several chunks', () => {
  it('answers every account once, in order, each with its records, a bounded chunk of accounts a part', async () => {
    const res = await api.app.request(`/v1/data-import/account-records/${SUPPLIER}/`, { headers: { authorization: `Token ${token}` } });
    expect(res.status).toBe(200);
    // Each part the stream hands over is one chunk of accounts, read and digested in one go.
    const parts: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) parts.push(decoder.decode(chunk));
    const linesPerPart = parts.map((part) => part.trimEnd().split('\n').length);
    const lines = parts
      .join('')
      .trimEnd()
      .split('\n')
      .map((line): AccountRecordsLine => accountRecordsLineSchema.parse(JSON.parse(line)));

    expect(lines.map((line) => line.external_account_number)).toEqual([
      'LEG-0000001',
      ...Array.from({ length: BULK }, (_, i) => `BULK-${String(i).padStart(5, '0')}`),
    ]);
    const example = lines[0]!;
    const notes = (loadExample('notes.json') as { notes: unknown[] }).notes.length;
    const transactions = (loadExample('transactions.json') as { transactions: unknown[] }).transactions.length;
    // The payload's own note and statement are recorded at process (docs/account-records.md).
    expect(example.counts).toMatchObject({ notes: notes + 1, transactions, statements: 1 });
    // A bulk account holds its payload's note and statement once imported, nothing before.
    expect(lines[1]!.counts).toMatchObject({ notes: 1, statements: 1, transactions: 0 });
    expect(lines[2]!.counts).toMatchObject({ notes: 0, statements: 0, transactions: 0 });

    expect(linesPerPart).toEqual([RECORDS_CHUNK_ACCOUNTS, RECORDS_CHUNK_ACCOUNTS, BULK + 1 - 2 * RECORDS_CHUNK_ACCOUNTS]);
  });
});
