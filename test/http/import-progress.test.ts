import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../projections/index.js';
import { changeTransferStatus, markAccountToSkip } from '../../src/application/account-import-processes.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, TEAM, createTestApi, loadExample, operator, type TestApi } from '../support/ledger.js';

/** A migration's progress, its failing accounts and what they fail on, through the real app. */

const BASE = '/v1/data-import';
const STAGE = `${BASE}/account-import-process/create-or-update/`;
const PROCESS = `${BASE}/account-import-process/process/`;
const progressPath = (supplier = SUPPLIER) => `${BASE}/import-progress/${supplier}/`;
const failuresPath = (supplier = SUPPLIER, query = '') => `${BASE}/import-failures/${supplier}/${query}`;
const summaryPath = (supplier = SUPPLIER, query = '') => `${BASE}/import-failures/${supplier}/summary/${query}`;

interface Progress {
  import_supplier: string;
  status: string;
  accounts: { pending: number; imported: number; skipped: number; failing: number; total: number };
  transfer_status: Record<'PENDING' | 'IN_PROGRESS' | 'REJECTED' | 'COMPLETED', number>;
  imports_per_minute: { minute: string; count: number }[];
  first_staged_at: string | null;
  last_activity_at: string | null;
}
interface Failure {
  external_account_number: string;
  step: 'stage' | 'process';
  operation: string;
  code: string;
  errors: { code: string; attr: string | null }[];
  failed_at: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Payload = any;
const account = (ext: string, supplier = SUPPLIER): Payload => ({ ...structuredClone(loadExample('account-domestic.json')), external_account_number: ext, import_supplier: supplier });
const badLandline = (ext: string): Payload => {
  const p = account(ext);
  p.customers[0].landline = '12345';
  return p;
};
const badBoth = (ext: string): Payload => {
  const p = badLandline(ext);
  p.customers[0].mobile = 'abc';
  return p;
};

let api: TestApi;
let token: string;
beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api);
});
afterEach(() => api.close());

const json = async <T>(res: Response, status = 200): Promise<T> => {
  expect(res.status).toBe(status);
  return (await res.json()) as T;
};
const progress = async () => json<Progress>(await api.get(progressPath(), token));
const failures = async (query = '') => json<Failure[]>(await api.get(failuresPath(SUPPLIER, query), token));
const summary = async (query = '') => json<{ code: string; attr: string | null; accounts: number }[]>(await api.get(summaryPath(SUPPLIER, query), token));
const stage = async (payload: Payload, status = 201) => expect((await api.post(STAGE, payload, token)).status).toBe(status);
const processAccount = async (ext: string, status = 201) =>
  expect((await api.post(PROCESS, { external_account_number: ext, import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token)).status).toBe(status);

describe('GET import-suppliers/', () => {
  it("lists the key's suppliers only, with their status", async () => {
    expect(await json(await api.get(`${BASE}/import-suppliers/`, token))).toEqual([{ import_supplier: SUPPLIER, status: 'Ongoing' }]);
    expect(await json(await api.get(`${BASE}/import-suppliers/`, await accessToken(api, api.otherKey)))).toEqual([{ import_supplier: OTHER_SUPPLIER, status: 'Ongoing' }]);
  });

  it('401 without a token or with a bad one', async () => {
    await expectErrorBody(await api.app.request(`${BASE}/import-suppliers/`), 401, 'not_authenticated');
    await expectErrorBody(await api.get(`${BASE}/import-suppliers/`, 'garbage'), 401, 'authentication_failed');
  });
});

describe('GET import-progress/<code>/', () => {
  it('starts at zero, with sixty empty minutes ending now', async () => {
    const p = await progress();
    expect(p).toMatchObject({ import_supplier: SUPPLIER, status: 'Ongoing', first_staged_at: null, last_activity_at: null });
    expect(p.accounts).toEqual({ pending: 0, imported: 0, skipped: 0, failing: 0, total: 0 });
    expect(p.transfer_status).toEqual({ PENDING: 0, IN_PROGRESS: 0, REJECTED: 0, COMPLETED: 0 });
    expect(p.imports_per_minute).toHaveLength(60);
    expect(p.imports_per_minute.at(-1)).toEqual({ minute: '2026-11-21T10:00:00Z', count: 0 });
    expect(p.imports_per_minute[0]!.minute).toBe('2026-11-21T09:01:00Z');
  });

  it('counts accounts per state, failing ones, transfer statuses and the imports of each minute', async () => {
    for (const ext of ['A-1', 'A-2', 'A-3', 'A-4']) await stage(account(ext));
    await processAccount('A-1');
    api.clock.advanceSeconds(60);
    await processAccount('A-2');
    await changeTransferStatus(api.ledger, SUPPLIER, 'A-2', 'IN_PROGRESS', operator);
    await markAccountToSkip(api.ledger, SUPPLIER, 'A-3', operator);
    await stage(badLandline('F-1'), 400);
    await stage(account('OTHER-1', OTHER_SUPPLIER), 403);
    const p = await progress();
    expect(p.accounts).toEqual({ pending: 2, imported: 2, skipped: 1, failing: 1, total: 5 });
    expect(p.transfer_status).toEqual({ PENDING: 1, IN_PROGRESS: 1, REJECTED: 0, COMPLETED: 0 });
    expect(p.imports_per_minute.slice(-2)).toEqual([
      { minute: '2026-11-21T10:00:00Z', count: 1 },
      { minute: '2026-11-21T10:01:00Z', count: 1 },
    ]);
    expect(p.first_staged_at).toBe('2026-11-21T10:00:00Z');
    expect(p.last_activity_at).toBe('2026-11-21T10:01:00Z');
    // An hour later the imports have left the window; the counts have not.
    api.clock.advanceSeconds(3600);
    token = await accessToken(api);
    const later = await progress();
    expect(later.imports_per_minute.every((m) => m.count === 0)).toBe(true);
    expect(later.accounts.imported).toBe(2);
  });

  it('403 for a supplier out of scope or unknown, 401 without a token', async () => {
    await expectErrorBody(await api.get(progressPath(OTHER_SUPPLIER), token), 403, 'permission_denied');
    await expectErrorBody(await api.get(progressPath('NO_SUCH_SUPPLIER'), token), 403, 'permission_denied');
    await expectErrorBody(await api.app.request(progressPath()), 401, 'not_authenticated');
  });
});

describe('GET import-failures/<code>/ and its summary', () => {
  it('an account that fails, then succeeds, leaves the counts, the list and the summary', async () => {
    await stage(badLandline('F-1'), 400);
    expect((await progress()).accounts).toEqual({ pending: 1, imported: 0, skipped: 0, failing: 1, total: 1 });
    expect(await failures()).toEqual([
      { external_account_number: 'F-1', step: 'stage', operation: 'stage', code: 'account_failed_validation', errors: [{ code: 'invalid_phone_number', attr: 'customers.0.landline' }], failed_at: '2026-11-21T10:00:00Z' },
    ]);
    expect(await summary()).toEqual([{ code: 'invalid_phone_number', attr: 'customers.0.landline', accounts: 1 }]);

    await stage(account('F-1'));
    expect((await progress()).accounts).toEqual({ pending: 1, imported: 0, skipped: 0, failing: 0, total: 1 });
    expect(await failures()).toEqual([]);
    expect(await summary()).toEqual([]);

    // A refused process fails it again (no items: counted under its top-level code); processing it clears it.
    await expect(await json(await api.post(PROCESS, { external_account_number: 'F-1', import_supplier_code: SUPPLIER, operations_team_name: 'No such team' }, token), 400)).toBeTruthy();
    const [failure] = await failures();
    expect(failure).toMatchObject({ external_account_number: 'F-1', step: 'process', operation: 'process' });
    expect((await summary()).map((s) => s.accounts)).toEqual([1]);
    await processAccount('F-1');
    expect((await progress()).accounts).toEqual({ pending: 0, imported: 1, skipped: 0, failing: 0, total: 1 });
    expect(await failures()).toEqual([]);
    expect(await summary()).toEqual([]);
  });

  it('summarises per code and path, largest first; ?code= keeps the accounts whose refusal has that code', async () => {
    await stage(badLandline('F-1'), 400);
    await stage(badLandline('F-2'), 400);
    await stage(badBoth('F-3'), 400);
    expect(await summary()).toEqual([
      { code: 'invalid_phone_number', attr: 'customers.0.landline', accounts: 3 },
      { code: 'invalid_phone_number', attr: 'customers.0.mobile', accounts: 1 },
    ]);
    expect(await summary('?limit=1')).toHaveLength(1);
    expect((await failures()).map((f) => f.external_account_number)).toEqual(['F-3', 'F-2', 'F-1']);
    expect((await failures('?code=invalid_phone_number')).map((f) => f.external_account_number)).toEqual(['F-3', 'F-2', 'F-1']);
    expect((await failures('?code=account_failed_validation')).map((f) => f.external_account_number)).toEqual(['F-3', 'F-2', 'F-1']);
    expect(await failures('?code=invalid')).toEqual([]);
    // `_` is no wildcard: a code one letter off matches nothing.
    expect(await failures('?code=invalid_phone_numbe_')).toEqual([]);
  });

  it('pages newest first with a Link header that keeps the filter, and no link after the last page', async () => {
    for (const ext of ['F-1', 'F-2', 'F-3', 'F-4', 'F-5']) await stage(badLandline(ext), 400);
    const seen: string[] = [];
    let path: string | null = failuresPath(SUPPLIER, '?limit=2&code=invalid_phone_number');
    let pages = 0;
    while (path !== null) {
      const res = await api.get(path, token);
      expect(res.status).toBe(200);
      seen.push(...((await res.json()) as Failure[]).map((f) => f.external_account_number));
      const link = res.headers.get('link');
      if (link) expect(link).toContain('code=invalid_phone_number');
      path = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1]! : null;
      pages++;
    }
    expect(seen).toEqual(['F-5', 'F-4', 'F-3', 'F-2', 'F-1']);
    expect(pages).toBe(3);
  });

  it('400 invalid_query_parameter for bad paging parameters or code', async () => {
    for (const query of ['?limit=0', '?limit=1001', '?limit=abc', '?after=nonsense!', '?after=Zm9v', '?code=Not-A-Code', '?limit=1&limit=2']) {
      await expectErrorBody(await api.get(failuresPath(SUPPLIER, query), token), 400, 'invalid_query_parameter');
    }
    for (const query of ['?limit=0', '?limit=x']) await expectErrorBody(await api.get(summaryPath(SUPPLIER, query), token), 400, 'invalid_query_parameter');
  });

  it('403 for a supplier out of scope or unknown, 401 without a token', async () => {
    for (const path of [failuresPath(OTHER_SUPPLIER), summaryPath(OTHER_SUPPLIER), failuresPath('NO_SUCH'), summaryPath('NO_SUCH')]) {
      await expectErrorBody(await api.get(path, token), 403, 'permission_denied');
    }
    await expectErrorBody(await api.app.request(failuresPath()), 401, 'not_authenticated');
    await expectErrorBody(await api.get(summaryPath(), 'garbage'), 401, 'authentication_failed');
  });

  it('a rebuild of the progress projections gives the rows the appends kept', async () => {
    await stage(badBoth('F-1'), 400);
    await stage(account('A-1'));
    await processAccount('A-1');
    await stage(badLandline('F-2'), 400);
    const progressProjections = inlineProjections.filter((p) => ['account_import_progress', 'import_progress_counts', 'import_failure_summary', 'import_throughput', 'import_activity'].includes(p.name));
    expect((await api.ledger.projections.verify(progressProjections)).differences).toEqual([]);
    const before = [await progress(), await failures(), await summary()];
    // Rebuilding the counts alone rebuilds their source with them.
    const rebuilt = await api.ledger.projections.rebuild(inlineProjections.filter((p) => p.name === 'import_progress_counts'));
    expect(rebuilt.projections).toEqual(expect.arrayContaining(['import_progress_counts', 'account_import_progress', 'import_failure_summary']));
    expect([await progress(), await failures(), await summary()]).toEqual(before);
  });
});
