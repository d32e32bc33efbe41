import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { serve } from '@hono/node-server';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markAccountToSkip, processAccount } from '../../src/application/account-import-processes.js';
import { createApiKey, createImportSupplier } from '../../src/application/operator.js';
import { createApp } from '../../src/http/app.js';
import { encodeListCursor } from '../../src/http/list-paging.js';
import { stageAccountsInBulk, type BulkAccount } from '../support/bulk-accounts.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, TEAM, TOKEN_SECRET, createTestApi, operator, plainAppDeps, type TestApi } from '../support/ledger.js';
import { checkedFetch, checkedRequest } from '../support/openapi-check.js';

/**
 * The three lists at scale: streamed in chunks, paged with `?limit=` and `?after=` and a
 * `Link` header, through the real app on the test store. SUPPLIER holds more accounts than one chunk
 * (1,000 rows); OTHER_SUPPLIER a few dozen, many staged in the same millisecond, for paging by ones.
 */

const BASE = '/v1/data-import';
const LISTS = ['all', 'pending', 'imported'] as const;
type List = (typeof LISTS)[number];
const listPath = (list: List, supplier: string) => `${BASE}/${list}-account-import-processes/${supplier}/`;
const statesOf: Record<List, readonly string[]> = { all: ['STAGED', 'SKIPPED', 'IMPORTED'], pending: ['STAGED'], imported: ['IMPORTED'] };

interface ListItem {
  external_account_number: string;
  platform_account_number: string | null;
  account_created_at: string | null;
}

const BIG = 2_100;
const SMALL = 40;
const T0 = Date.parse('2026-03-01T08:00:00.000Z');

/**
 * Accounts whose order by number differs from their order of staging, several staged in the same
 * millisecond (the order then falls back on the number): `${prefix}` + a 5-digit permutation of i.
 */
function accounts(prefix: string, count: number, perInstant: number): BulkAccount[] {
  return Array.from({ length: count }, (_, i) => ({
    ext: `${prefix}${String((i * 7_919) % 10_007).padStart(5, '0')}`,
    stagedAt: new Date(T0 + Math.floor(i / perInstant) * 1_000).toISOString(),
    imported: i % 10 === 0,
  }));
}

let api: TestApi;
let token: string;
let otherToken: string;
/** A supplier without accounts, and a token of a key scoped to it. */
const EMPTY_SUPPLIER = 'EMPTY_SUPPLIER';
let emptyToken: string;

beforeAll(async () => {
  api = await createTestApi();
  token = await accessToken(api, api.key);
  otherToken = await accessToken(api, api.otherKey);
  await createImportSupplier(api.ledger, { code: EMPTY_SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
  emptyToken = await accessToken(api, (await createApiKey(api.ledger, { suppliers: [EMPTY_SUPPLIER], label: 'empty' }, operator)).key);
  const big = accounts('K', BIG, 7);
  await stageAccountsInBulk(api.ledger, SUPPLIER, big);
  await stageAccountsInBulk(api.ledger, OTHER_SUPPLIER, accounts('S', SMALL, 6));
  // Two staged accounts marked to skip: in the all list only.
  for (const account of [big[1]!, big[2]!]) await markAccountToSkip(api.ledger, SUPPLIER, account.ext, operator);
}, 120_000);

afterAll(() => api.close());

/** The list as the projection holds it, ordered as the spec's list is (first staging, then number; ASCII numbers sort alike everywhere). */
async function expectedItems(list: List, supplier: string): Promise<ListItem[]> {
  const rows = (await api.execute(
    `SELECT external_account_number, platform_account_number, account_created_at, first_staged_at, state FROM account_import_processes WHERE import_supplier = '${supplier}'`,
  )) as { external_account_number: string; platform_account_number: string | null; account_created_at: string | null; first_staged_at: string; state: string }[];
  return rows
    .filter((row) => statesOf[list].includes(row.state))
    .sort((a, b) => (a.first_staged_at === b.first_staged_at ? cmp(a.external_account_number, b.external_account_number) : cmp(a.first_staged_at, b.first_staged_at)))
    .map((row) => ({
      external_account_number: row.external_account_number,
      platform_account_number: row.platform_account_number,
      account_created_at: row.account_created_at === null ? null : row.account_created_at.replace(/\.\d+Z$/, 'Z'),
    }));
}
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Follows `Link: rel="next"` from `first` to the last page; every page checked on the way. */
async function pageThrough(first: string, withToken: string, on: TestApi = api): Promise<{ items: ListItem[]; pages: number; sizes: number[] }> {
  const items: ListItem[] = [];
  const sizes: number[] = [];
  let next: string | null = first;
  while (next !== null) {
    const res = await on.get(next, withToken);
    expect(res.status).toBe(200);
    const page = (await res.json()) as ListItem[];
    items.push(...page);
    sizes.push(page.length);
    const link = res.headers.get('link');
    next = link === null ? null : /^<([^>]+)>; rel="next"$/.exec(link)![1]!;
  }
  return { items, pages: sizes.length, sizes };
}

describe('the full list streams (the default answer, unchanged)', () => {
  it.each(LISTS)('%s: more rows than one chunk, exactly the projection rows, in order, as one compact JSON array', async (list) => {
    const res = await api.get(listPath(list, SUPPLIER), token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('link')).toBeNull();
    const text = await res.text();
    const expected = await expectedItems(list, SUPPLIER);
    expect(expected.length).toBeGreaterThan(list === 'all' ? BIG - 1 : list === 'pending' ? 1_000 : 200);
    // Byte for byte what one JSON.stringify of the whole list gives: existing clients see no difference.
    expect(text).toBe(JSON.stringify(expected));
  });

  it('an empty list is [] with 200, paged or not', async () => {
    for (const list of LISTS) {
      for (const query of ['', '?limit=5']) {
        const res = await api.get(`${listPath(list, EMPTY_SUPPLIER)}${query}`, emptyToken);
        expect(res.status).toBe(200);
        expect(res.headers.get('link')).toBeNull();
        expect(await res.text()).toBe('[]');
      }
    }
  });
});

describe('cursor paging: ?limit= and ?after=, the next page in a Link header', () => {
  it('announces the next page as <path?limit=N&after=cursor>; rel="next", and none on the last page', async () => {
    const res = await api.get(`${listPath('all', SUPPLIER)}?limit=1000`, token);
    expect(res.headers.get('link')).toMatch(/^<\/v1\/data-import\/all-account-import-processes\/LEGACY_ENERGIE\/\?limit=1000&after=[A-Za-z0-9_-]+>; rel="next"$/);
    expect(((await res.json()) as unknown[]).length).toBe(1_000);
    const { pages, sizes } = await pageThrough(`${listPath('all', SUPPLIER)}?limit=1000`, token);
    expect({ pages, sizes }).toEqual({ pages: 3, sizes: [1_000, 1_000, 100] });
    // A page that ends exactly at the end of the list announces no next page.
    const exact = await pageThrough(`${listPath('all', OTHER_SUPPLIER)}?limit=${SMALL}`, otherToken);
    expect(exact.sizes).toEqual([SMALL]);
  });

  it('for any list and page size, following Link yields the full list once, in order (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...LISTS), fc.integer({ min: 1, max: SMALL + 2 }), async (list, limit) => {
        const full = await expectedItems(list, OTHER_SUPPLIER);
        const paged = await pageThrough(`${listPath(list, OTHER_SUPPLIER)}?limit=${limit}`, otherToken);
        expect(paged.items).toEqual(full);
        expect(paged.sizes.slice(0, -1).every((size) => size === limit)).toBe(true);
        expect(paged.pages).toBe(Math.max(1, Math.ceil(full.length / limit)));
      }),
      { numRuns: 25 },
    );
  });

  it('pages larger than a chunk: the full list of 2,100 once, in order, whatever the page size (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...LISTS), fc.integer({ min: 700, max: 10_000 }), async (list, limit) => {
        const paged = await pageThrough(`${listPath(list, SUPPLIER)}?limit=${limit}`, token);
        expect(paged.items).toEqual(await expectedItems(list, SUPPLIER));
      }),
      { numRuns: 6 },
    );
  });

  it('?after= without ?limit= streams the rest of the list', async () => {
    const full = await expectedItems('all', SUPPLIER);
    const first = await api.get(`${listPath('all', SUPPLIER)}?limit=1234`, token);
    const after = /after=([A-Za-z0-9_-]+)/.exec(first.headers.get('link')!)![1]!;
    const rest = await api.get(`${listPath('all', SUPPLIER)}?after=${after}`, token);
    expect(rest.headers.get('link')).toBeNull();
    expect(await rest.json()).toEqual(full.slice(1234));
  });

  it('a cursor stays good while accounts are processed and staged: nothing twice, nothing that stayed pending missed', async () => {
    const own = await createTestApi();
    try {
      const ownToken = await accessToken(own, own.key);
      await stageAccountsInBulk(own.ledger, SUPPLIER, accounts('P', 30, 4).map((a) => ({ ...a, imported: false })));
      const first = await own.get(`${listPath('pending', SUPPLIER)}?limit=10`, ownToken);
      const seen = ((await first.json()) as ListItem[]).map((item) => item.external_account_number);
      const before = (await (await own.get(listPath('pending', SUPPLIER), ownToken)).json()) as ListItem[];
      // Meanwhile: an account of the next page is processed (it leaves the pending list), new ones are staged.
      const leaving = before[12]!.external_account_number;
      await processAccount(own.ledger, { importSupplier: SUPPLIER, externalAccountNumber: leaving, operationsTeamName: TEAM, dryRun: false }, operator);
      await stageAccountsInBulk(own.ledger, SUPPLIER, [{ ext: 'LATE-1', stagedAt: new Date(T0 + 3_600_000).toISOString() }]);
      const rest = await pageThrough(/^<([^>]+)>/.exec(first.headers.get('link')!)![1]!, ownToken, own);
      const all = [...seen, ...rest.items.map((item) => item.external_account_number)];
      expect(new Set(all).size).toBe(all.length);
      expect(all).toEqual([...before.map((item) => item.external_account_number).filter((ext) => ext !== leaving), 'LATE-1']);
    } finally {
      await own.close();
    }
  });
});

describe('bad paging parameters and scope', () => {
  const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each([
    { query: '?limit=0', attr: 'limit', label: '?limit=0' },
    { query: '?limit=10001', attr: 'limit', label: '?limit=10001' },
    { query: '?limit=abc', attr: 'limit', label: '?limit=abc' },
    { query: '?limit=-1', attr: 'limit', label: '?limit=-1' },
    { query: '?limit=1.5', attr: 'limit', label: '?limit=1.5' },
    { query: '?limit=', attr: 'limit', label: '?limit=' },
    { query: '?limit=1&limit=2', attr: 'limit', label: '?limit=1&limit=2' },
    { query: '?after=', attr: 'after', label: '?after=' },
    { query: '?after=not%20a%20cursor', attr: 'after', label: '?after=not%20a%20cursor' },
    { query: `?after=${cursor(['2026-03-01T08:00:00.000Z'])}`, attr: 'after', label: '?after=["2026-03-01T08:00:00.000Z"] encoded' },
    { query: `?after=${cursor({ at: '2026-03-01T08:00:00.000Z', ext: 'K1' })}`, attr: 'after', label: '?after={ at: "2026-03-01T08:00:00.000Z", ext: "K1" } encoded' },
    { query: `?after=${cursor(['yesterday', 'K1'])}`, attr: 'after', label: '?after=["yesterday", "K1"] encoded' },
    { query: `?after=${cursor(['2026-03-01T08:00:00.000Z', ''])}`, attr: 'after', label: '?after=["2026-03-01T08:00:00.000Z", ""] encoded' },
    { query: `?after=${'A'.repeat(2_000)}`, attr: 'after', label: '?after= of 2,000 characters' },
  ])('$label: 400 invalid_query_parameter at attr $attr, on every list', async ({ query, attr }) => {
    for (const list of LISTS) {
      const body = await expectErrorBody(await api.get(`${listPath(list, SUPPLIER)}${query}`, token), 400, 'invalid_query_parameter');
      expect(body.errors.map((e) => e.attr)).toEqual([attr]);
    }
  });

  it('both bad: one error per parameter', async () => {
    const body = await expectErrorBody(await api.get(`${listPath('all', SUPPLIER)}?limit=0&after=x`, token), 400, 'invalid_query_parameter');
    expect(body.errors.map((e) => e.attr)).toEqual(['limit', 'after']);
  });

  it('a supplier outside the key, existing or not, is 403 permission_denied, paged or not, before the parameters are looked at', async () => {
    for (const list of LISTS) {
      for (const supplier of [OTHER_SUPPLIER, 'NO_SUCH_SUPPLIER']) {
        for (const query of ['', '?limit=5', '?limit=0', `?after=${encodeListCursor({ firstStagedAt: '2026-03-01T08:00:00.000Z', externalAccountNumber: 'S1' })}`]) {
          await expectErrorBody(await api.get(`${listPath(list, supplier)}${query}`, token), 403, 'permission_denied');
        }
      }
    }
  });
});

/**
 * The one exception to "every answer a test receives is checked against the document": the answers these
 * tests read only in part (cancelled, dropped) or that fail mid-body (the store closed), because the check
 * reads a JSON body in full, which would change what the test observes. Every other answer here (the
 * follow-up requests) is checked.
 */
describe('a client that goes away stops the read; the service stays healthy', () => {
  /** The app on the test ledger with a logger whose lines the test reads (unchecked: see above). */
  function appWithLog() {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const app = createApp({
      ...api.ledger,
      ...plainAppDeps,
      logger: pino({ level: 'info' }, sink),
      tokenSecret: TOKEN_SECRET,
      maxBodyBytes: 1_000_000,
      databaseReachable: async () => true,
    });
    const streamEnd = async () => {
      for (let i = 0; i < 200 && !lines.some((l) => l['msg'] === 'streamed response ended'); i++) await new Promise((r) => setTimeout(r, 10));
      return lines.find((l) => l['msg'] === 'streamed response ended');
    };
    return { app, streamEnd };
  }

  it('cancelling the body after its first part ends the read there', async () => {
    const { app, streamEnd } = appWithLog();
    const res = await app.request(listPath('all', SUPPLIER), { headers: { authorization: `Token ${token}` } });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    await reader.cancel();
    const ended = await streamEnd();
    expect(ended).toMatchObject({ outcome: 'client_closed', items: 1_000 });
    // The next request is served in full.
    const again = await checkedRequest(app.request)(listPath('all', SUPPLIER), { headers: { authorization: `Token ${token}` } });
    expect(((await again.json()) as unknown[]).length).toBe(BIG);
  });

  it('a store failure once the status is sent fails the client read (never an array that looks whole) and is logged', async () => {
    const own = await createTestApi({ exampleProducts: false });
    let closed = false;
    try {
      const ownToken = await accessToken(own, own.key);
      const lines: Record<string, unknown>[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
          done();
        },
      });
      const app = createApp({ ...own.ledger, ...plainAppDeps, logger: pino({ level: 'info' }, sink), tokenSecret: TOKEN_SECRET, maxBodyBytes: 1_000_000, databaseReachable: async () => true });
      const res = await app.request(listPath('all', SUPPLIER), { headers: { authorization: `Token ${ownToken}` } });
      expect(res.status).toBe(200);
      // The store goes away after the status and headers, before the body's first chunk is read.
      await own.ledger.close();
      closed = true;
      await expect(res.text()).rejects.toThrow();
      expect(lines.find((l) => l['msg'] === 'streamed response failed')).toMatchObject({ outcome: 'failed', items: 0 });
    } finally {
      if (!closed) await own.close();
      else await own.close().catch(() => undefined);
    }
  });

  it('a client that drops the connection mid-body leaves the server answering', async () => {
    const { app } = appWithLog();
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    try {
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      const { port } = server.address() as { port: number };
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: listPath('all', SUPPLIER), headers: { authorization: `Token ${token}` } }, (res) => {
          expect(res.statusCode).toBe(200);
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
        req.end();
      });
      const health = await checkedFetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      const full = await checkedFetch(`http://127.0.0.1:${port}${listPath('all', SUPPLIER)}`, { headers: { authorization: `Token ${token}` } });
      expect(((await full.json()) as unknown[]).length).toBe(BIG);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
