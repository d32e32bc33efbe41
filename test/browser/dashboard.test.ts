import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/package-root.js';
import { launchChromium, pageIcon, skipWithoutChromium, watchPage } from '../support/browser.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, TEAM, createTestApi, loadExample, type TestApi } from '../support/ledger.js';

/** Where the screenshot goes: a person looks at it; git ignores the folder. */
const SCREENSHOT = join(packageRoot(), 'test-output', 'dashboard.png');

const BASE = '/v1/data-import';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const account = (ext: string): any => ({ ...structuredClone(loadExample('account-domestic.json')), external_account_number: ext, import_supplier: SUPPLIER });

/** The migration dashboard in real headless Chromium, against the real app on a real port. */
describe('GET /dashboard/ in headless Chromium', () => {
  if (skipWithoutChromium()) return;
  let t: TestApi;
  let token: string;
  let server: ServerType;
  let base: string;
  let browser: Browser;
  let endpointId: string;
  beforeAll(async () => {
    t = await createTestApi({ webhookDestinations: { allowPrivateNetworks: true } });
    token = await accessToken(t);
    // A migration under way: two imported, one pending, two failing (one of them on two fields).
    for (const ext of ['ACC-1', 'ACC-2', 'ACC-3']) expect((await t.post(`${BASE}/account-import-process/create-or-update/`, account(ext), token)).status).toBe(201);
    for (const ext of ['ACC-1', 'ACC-2']) {
      expect((await t.post(`${BASE}/account-import-process/process/`, { external_account_number: ext, import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token)).status).toBe(201);
    }
    const bad = account('BAD-1');
    bad.customers[0].landline = '12345';
    expect((await t.post(`${BASE}/account-import-process/create-or-update/`, bad, token)).status).toBe(400);
    const worse = account('BAD-2');
    worse.customers[0].landline = '12345';
    worse.customers[0].mobile = 'abc';
    expect((await t.post(`${BASE}/account-import-process/create-or-update/`, worse, token)).status).toBe(400);
    // A verification recorded by `import-ledger verify`: the dashboard shows the last one.
    const summary = { accounts: { identical: 2, missing: 1, extra: 0, different: 0 }, transactions: { identical: 4, missing: 0, extra: 0, different: 1 } };
    expect((await t.post(`${BASE}/verifications/`, { import_supplier: SUPPLIER, agree: false, summary }, token)).status).toBe(201);
    // A webhook endpoint whose deliveries stand behind the log, one event waiting for a retry, the last attempt failed.
    const created = await t.post(`${BASE}/webhook-endpoints/`, { import_supplier_code: SUPPLIER, url: 'http://127.0.0.1:9/hooks' }, token);
    expect(created.status).toBe(201);
    endpointId = ((await created.json()) as { id: string }).id;
    const head = await t.ledger.log.lastPosition();
    expect(await t.ledger.relays.acquire(`webhook:${endpointId}`, 'an-instance', Date.now(), 60_000, { position: head - 3, replaySeq: 0 })).not.toBeNull();
    await t.ledger.relays.park([{ endpointId, position: head - 5, orderingKey: `account:${SUPPLIER}/ACC-1`, attempts: 2, nextAttemptAtMs: Date.now() + 60_000, firstFailedAtMs: Date.now() }]);
    await t.ledger.webhookAttempts.record([
      { endpointId, messageId: 'evt-1', eventType: 'data_import.import_process.complete-v1', position: head - 5, attempt: 2, statusCode: 503, durationMs: 4, error: 'busy', outcome: 'failed', attemptedAt: new Date().toISOString() },
    ]);
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: t.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    // The page keeps its event stream open: close it with the server.
    (server as Server | undefined)?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  const counts = async (page: Page) =>
    Object.fromEntries(
      await Promise.all(
        (['pending', 'imported', 'skipped', 'failing', 'total'] as const).map(async (name) => [name, Number(await page.getByTestId(`count-${name}`).textContent())] as const),
      ),
    );
  const apiProgress = async () => ((await (await t.get(`${BASE}/import-progress/${SUPPLIER}/`, token)).json()) as { accounts: Record<string, number> }).accounts;

  it('signs in with a key, shows the API counts and failures, follows live events, asks nothing of the internet, and logs no console error', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    // The event stream is cut when the test ends: that is no failed load.
    const trouble = watchPage(page, base, (url) => url.includes('/events/'));

    const res = await page.goto(`${base}/dashboard/`);
    expect(res?.status()).toBe(200);
    await page.getByLabel('API key').fill(t.key);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // The counts are the API's.
    const expected = await apiProgress();
    expect(expected).toEqual({ pending: 3, imported: 2, skipped: 0, failing: 2, total: 5 });
    await expect.poll(() => counts(page), { timeout: 10_000 }).toEqual(expected);
    expect(await page.locator('#progress').getAttribute('value')).toBe('2');
    // The last verification: when, by which key, what differed.
    await expect.poll(() => page.getByTestId('last-verification').textContent()).toMatch(/^Last verification: .+ by key \S+: differ: accounts 1, transactions 1$/);

    // The supplier's webhook endpoints: status, lag, what waits for a retry, the last failure.
    const webhook = page.getByTestId('webhooks').locator(`tr[data-endpoint="${endpointId}"] td`);
    await expect.poll(() => webhook.allTextContents()).toEqual(['http://127.0.0.1:9/hooks', 'enabled', '3', '1', expect.stringMatching(/, data_import\.import_process\.complete-v1: HTTP 503: busy$/)]);

    // The token is in sessionStorage only; the key is nowhere.
    const storage = await page.evaluate<{ session: string; local: number }>('({ session: JSON.stringify(sessionStorage), local: localStorage.length })');
    expect(storage.local).toBe(0);
    expect(storage.session).toContain('token');
    expect(storage.session).not.toContain(t.key);

    // The summary names what fails; a row opens the accounts failing on it.
    const summary = page.getByTestId('failures-summary');
    await expect.poll(() => summary.locator('tbody tr').count()).toBe(2);
    const landline = summary.locator('tbody tr', { hasText: 'customers.0.landline' });
    expect(await landline.locator('td').nth(2).textContent()).toBe('2');
    await landline.click();
    const failing = page.getByTestId('failing-accounts');
    await expect.poll(() => failing.isVisible()).toBe(true);
    await expect.poll(async () => (await failing.locator('tbody tr td:first-child').allTextContents()).sort()).toEqual(['BAD-1', 'BAD-2']);

    // An account staged through the API shows in the live list and the counts within 2 s.
    await expect.poll(() => page.locator('#live-state').textContent(), { timeout: 10_000 }).toBe('Live: connected.');
    expect((await t.post(`${BASE}/account-import-process/create-or-update/`, account('LIVE-1'), token)).status).toBe(201);
    await expect.poll(() => page.getByTestId('live-events').textContent(), { timeout: 2_000 }).toContain('LIVE-1');
    await expect.poll(() => counts(page), { timeout: 2_000 }).toEqual({ ...expected, pending: 4, total: 6 });

    mkdirSync(join(packageRoot(), 'test-output'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(await pageIcon(page)).toEqual({ status: 200, type: 'image/svg+xml' });
    expect(trouble).toEqual({ failed: [], foreign: [], consoleErrors: [] });
    await page.close();
  }, 60_000);

  it('resumes the live list after the stream drops, from the last event it saw (Last-Event-ID)', async () => {
    const page = await browser.newPage();
    const resumedWith: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/events/')) resumedWith.push(request.headers()['last-event-id'] ?? '');
    });
    await page.goto(`${base}/dashboard/`);
    await page.getByLabel('API key').fill(t.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#live-state').textContent(), { timeout: 10_000 }).toBe('Live: connected.');
    // Drop every open connection (the event stream among them): the page reconnects on its own.
    (server as Server).closeAllConnections();
    await expect.poll(() => resumedWith.length, { timeout: 10_000 }).toBeGreaterThan(1);
    expect(resumedWith[0]).toBe('');
    expect(resumedWith.at(-1)).toMatch(/^\d+$/);
    await expect.poll(() => page.locator('#live-state').textContent(), { timeout: 10_000 }).toBe('Live: connected.');
    expect((await t.post(`${BASE}/account-import-process/create-or-update/`, account('LIVE-2'), token)).status).toBe(201);
    await expect.poll(() => page.getByTestId('live-events').textContent(), { timeout: 5_000 }).toContain('LIVE-2');
    await page.close();
  }, 60_000);
});
