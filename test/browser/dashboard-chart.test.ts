import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipWithoutChromium, watchPage } from '../support/browser.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, TEAM, createTestApi, loadExample, type TestApi } from '../support/ledger.js';

const BASE = '/v1/data-import';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const account = (ext: string): any => ({ ...structuredClone(loadExample('account-domestic.json')), external_account_number: ext, import_supplier: SUPPLIER });

/**
 * Of the chart's plot area, the part between the left edge of its first bar and the right edge of its last,
 * read from the pixels drawn (half way up the plot area: a full-height bar is there, the baseline is not).
 */
const barsSpan = (page: Page) =>
  page.evaluate<{ span: number; bars: number }>(`(() => {
    const canvas = document.querySelector('#chart canvas');
    const over = document.querySelector('#chart .u-over');
    const scale = canvas.width / canvas.getBoundingClientRect().width;
    const plot = over.getBoundingClientRect();
    const left = Math.round((plot.left - canvas.getBoundingClientRect().left) * scale);
    const width = Math.round(plot.width * scale);
    const row = Math.round((plot.top - canvas.getBoundingClientRect().top + plot.height / 2) * scale);
    const pixels = canvas.getContext('2d').getImageData(left, row, width, 1).data;
    const blue = [];
    for (let x = 0; x < width; x++) blue.push(pixels[4 * x + 2] - pixels[4 * x] > 30);
    const first = blue.indexOf(true);
    const last = blue.lastIndexOf(true);
    const bars = blue.filter((b, x) => b && !blue[x - 1]).length;
    return { span: first === -1 ? 0 : (last - first + 1) / width, bars };
  })()`);

/** The chart's window in headless Chromium, against the real app on a real port, its clock the test's. */
describe("the dashboard's imports-per-minute chart", () => {
  if (skipWithoutChromium()) return;
  let t: TestApi;
  let token: string;
  let server: ServerType;
  let base: string;
  let browser: Browser;
  beforeAll(async () => {
    t = await createTestApi();
    token = await accessToken(t);
    // A migration of four minutes: six accounts staged, two processed at its first minute, two at its third, two at its fifth.
    for (let i = 1; i <= 6; i++) expect((await t.post(`${BASE}/account-import-process/create-or-update/`, account(`ACC-${i}`), token)).status).toBe(201);
    for (const pair of [[1, 2], [3, 4], [5, 6]]) {
      t.clock.advanceSeconds(pair[0] === 1 ? 10 : 120);
      for (const i of pair) {
        const processed = await t.post(`${BASE}/account-import-process/process/`, { external_account_number: `ACC-${i}`, import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token);
        expect(processed.status).toBe(201);
      }
    }
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: t.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    (server as Server | undefined)?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  it('spans a migration of a few minutes across the chart, and the last hour once the migration is older', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    const trouble = watchPage(page, base, (url) => url.includes('/events/'));
    await page.goto(`${base}/dashboard/`);
    await page.getByLabel('API key').fill(t.key);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // Its five minutes, not the hour: the three minutes with imports are three bars from one side to the other.
    const chart = page.locator('#chart');
    await expect.poll(() => chart.getAttribute('aria-label'), { timeout: 10_000 }).toBe('Imports per minute over the last 5 minutes: 6 in all.');
    await expect.poll(() => barsSpan(page)).toMatchObject({ bars: 3 });
    expect((await barsSpan(page)).span).toBeGreaterThan(0.75);
    expect(trouble).toEqual({ failed: [], foreign: [], consoleErrors: [] });

    // Seventy minutes on (an account staged then refreshes the page, and its token, expired by the service's
    // clock, is renewed after one 401), the window is the last hour: the bars of the migration's start have left it.
    await expect.poll(() => page.locator('#live-state').textContent(), { timeout: 10_000 }).toBe('Live: connected.');
    t.clock.advanceSeconds(70 * 60);
    expect((await t.post(`${BASE}/account-import-process/create-or-update/`, account('ACC-7'), await accessToken(t))).status).toBe(201);
    await expect.poll(() => chart.getAttribute('aria-label'), { timeout: 5_000 }).toBe('Imports per minute over the last 60 minutes: 0 in all.');
    await page.close();
  }, 60_000);
});
