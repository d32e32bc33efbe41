import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeTransferStatus, markAccountToSkip } from '../../src/application/account-import-processes.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import {
  OTHER_SUPPLIER,
  SUPPLIER,
  TEAM,
  createTestApi,
  loadExample,
  operator,
  type TestApi,
} from '../support/ledger.js';

/** Spec 4.13 (transfer status) and 4.14 (the all, pending and imported lists), through the real app. */

const BASE = '/v1/data-import';
const statusPath = (supplier: string, ext: string) => `${BASE}/account-transfer-status/${supplier}/${ext}/`;
const listPath = (list: 'all' | 'pending' | 'imported', supplier: string) => `${BASE}/${list}-account-import-processes/${supplier}/`;
const LISTS = ['all', 'pending', 'imported'] as const;

interface ListItem {
  external_account_number: string;
  platform_account_number: string | null;
  account_created_at: string | null;
}


let api: TestApi;
let token: string;

beforeEach(async () => {
  api = await createTestApi();
  token = await accessToken(api, api.key);
});

afterEach(() => {
  api.close();
});

/** Stages the domestic example under another external account number (and supplier). */
async function stage(ext: string, supplier = SUPPLIER, withToken = token): Promise<void> {
  const payload = { ...loadExample('account-domestic.json'), external_account_number: ext, import_supplier: supplier };
  const res = await api.post(`${BASE}/account-import-process/create-or-update/`, payload, withToken);
  expect(res.status).toBe(201);
}

async function processAccount(ext: string, supplier = SUPPLIER, withToken = token): Promise<string> {
  const res = await api.post(
    `${BASE}/account-import-process/process/`,
    { external_account_number: ext, import_supplier_code: supplier, operations_team_name: TEAM },
    withToken,
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { platform_account_number: string }).platform_account_number;
}

async function list(which: 'all' | 'pending' | 'imported', supplier = SUPPLIER, withToken = token): Promise<ListItem[]> {
  const res = await api.get(listPath(which, supplier), withToken);
  expect(res.status).toBe(200);
  return (await res.json()) as ListItem[];
}

const byExt = (items: readonly ListItem[]) =>
  [...items].sort((a, b) => a.external_account_number.localeCompare(b.external_account_number));

const pendingItem = (ext: string): ListItem => ({ external_account_number: ext, platform_account_number: null, account_created_at: null });

describe('GET account-transfer-status/<code>/<ext>/ (spec 4.13)', () => {
  it('reads UNKNOWN with an empty platform account number for a staged account', async () => {
    await stage('ACC-1');
    const res = await api.get(statusPath(SUPPLIER, 'ACC-1'), token);
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({ status: 'UNKNOWN', platform_account_number: '' });
  });

  it('reads PENDING with the platform account number once the account is imported', async () => {
    await stage('ACC-1');
    const number = await processAccount('ACC-1');
    const res = await api.get(statusPath(SUPPLIER, 'ACC-1'), token);
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({ status: 'PENDING', platform_account_number: number });
  });

  it('follows the operator moving the transfer status along', async () => {
    await stage('ACC-1');
    const number = await processAccount('ACC-1');
    await changeTransferStatus(api.ledger, SUPPLIER, 'ACC-1', 'IN_PROGRESS', operator);
    const inProgress = await api.get(statusPath(SUPPLIER, 'ACC-1'), token);
    expect(await inProgress.json()).toStrictEqual({ status: 'IN_PROGRESS', platform_account_number: number });
    await changeTransferStatus(api.ledger, SUPPLIER, 'ACC-1', 'COMPLETED', operator);
    const completed = await api.get(statusPath(SUPPLIER, 'ACC-1'), token);
    expect(await completed.json()).toStrictEqual({ status: 'COMPLETED', platform_account_number: number });
  });

  it('answers 404 account_not_found for an account never staged', async () => {
    await expectErrorBody(await api.get(statusPath(SUPPLIER, 'NOPE-1'), token), 404, 'account_not_found');
  });

  it('answers 404 for an account that exists only under another supplier', async () => {
    const otherToken = await accessToken(api, api.otherKey);
    await stage('SHARED-1', OTHER_SUPPLIER, otherToken);
    await expectErrorBody(await api.get(statusPath(SUPPLIER, 'SHARED-1'), token), 404, 'account_not_found');
  });
});

describe('the list endpoints (spec 4.14)', () => {
  it.each(LISTS)('%s: an empty list is [] with 200', async (which) => {
    expect(await list(which)).toStrictEqual([]);
  });

  it('pending: staged accounts with null platform_account_number and account_created_at', async () => {
    await stage('ACC-1');
    await stage('ACC-2');
    expect(byExt(await list('pending'))).toStrictEqual([pendingItem('ACC-1'), pendingItem('ACC-2')]);
  });

  it('imported: only imported accounts, with their number and account_created_at', async () => {
    await stage('ACC-1');
    await stage('ACC-2');
    api.clock.advanceSeconds(60);
    const number = await processAccount('ACC-2');
    const items = await list('imported');
    expect(items).toHaveLength(1);
    const [item] = items;
    expect(Object.keys(item ?? {}).sort()).toEqual(['account_created_at', 'external_account_number', 'platform_account_number']);
    expect(item?.external_account_number).toBe('ACC-2');
    expect(item?.platform_account_number).toBe(number);
    expect(item?.account_created_at).not.toBeNull();
    expect(new Date(item?.account_created_at ?? '').toISOString()).toBe(api.clock.now.toISOString());
    // spec 2.1: datetimes are written YYYY-MM-DDTHH:MM:SSZ
    expect(item?.account_created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(await list('pending')).toStrictEqual([pendingItem('ACC-1')]);
  });

  it('all: staged and imported accounts, the imported item equal to the one in the imported list', async () => {
    await stage('ACC-1');
    await stage('ACC-2');
    await processAccount('ACC-2');
    const [imported] = await list('imported');
    expect(imported).toBeDefined();
    expect(byExt(await list('all'))).toStrictEqual([pendingItem('ACC-1'), imported]);
  });

  it('a skipped account is in the all list but not in the pending (nor imported) list', async () => {
    await stage('ACC-1');
    await stage('ACC-SKIP');
    await markAccountToSkip(api.ledger, SUPPLIER, 'ACC-SKIP', operator);
    expect(byExt(await list('all')).map((item) => item.external_account_number)).toEqual(['ACC-1', 'ACC-SKIP']);
    expect(await list('pending')).toStrictEqual([pendingItem('ACC-1')]);
    expect(await list('imported')).toStrictEqual([]);
  });

  it('a re-staged account appears once', async () => {
    await stage('ACC-1');
    const payload = { ...loadExample('account-domestic.json'), external_account_number: 'ACC-1' };
    expect((await api.post(`${BASE}/account-import-process/create-or-update/`, payload, token)).status).toBe(200);
    expect(await list('all')).toStrictEqual([pendingItem('ACC-1')]);
    expect(await list('pending')).toStrictEqual([pendingItem('ACC-1')]);
  });

  it('accounts of another supplier never appear', async () => {
    const otherToken = await accessToken(api, api.otherKey);
    await stage('ACC-1');
    await stage('OTH-STAGED', OTHER_SUPPLIER, otherToken);
    await stage('OTH-IMPORTED', OTHER_SUPPLIER, otherToken);
    await processAccount('OTH-IMPORTED', OTHER_SUPPLIER, otherToken);
    // The same external account number under both suppliers stays two accounts.
    await stage('SHARED-1', OTHER_SUPPLIER, otherToken);
    await processAccount('SHARED-1', OTHER_SUPPLIER, otherToken);
    await stage('SHARED-1');

    expect(byExt(await list('all'))).toStrictEqual([pendingItem('ACC-1'), pendingItem('SHARED-1')]);
    expect(byExt(await list('pending'))).toStrictEqual([pendingItem('ACC-1'), pendingItem('SHARED-1')]);
    expect(await list('imported')).toStrictEqual([]);

    // ... and the other supplier's lists hold its own accounts only.
    const otherAll = await list('all', OTHER_SUPPLIER, otherToken);
    expect(otherAll.map((item) => item.external_account_number).sort()).toEqual(['OTH-IMPORTED', 'OTH-STAGED', 'SHARED-1']);
    const otherImported = await list('imported', OTHER_SUPPLIER, otherToken);
    expect(otherImported.map((item) => item.external_account_number).sort()).toEqual(['OTH-IMPORTED', 'SHARED-1']);
  });
});

describe('supplier scope', () => {
  it('a key scoped to another supplier gets 403 permission_denied on every GET', async () => {
    await stage('ACC-1');
    await processAccount('ACC-1');
    const otherToken = await accessToken(api, api.otherKey);
    const paths = [statusPath(SUPPLIER, 'ACC-1'), statusPath(SUPPLIER, 'NOPE-1'), ...LISTS.map((which) => listPath(which, SUPPLIER))];
    for (const path of paths) {
      await expectErrorBody(await api.get(path, otherToken), 403, 'permission_denied');
    }
  });
});
