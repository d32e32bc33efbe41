import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipWithoutChromium } from '../support/browser.js';
import { createTestApi, type TestApi } from '../support/ledger.js';

/** The reference page in a real browser: it loads with no failed request (nothing from a CDN) and shows the operations. */
describe('GET /docs in headless Chromium', () => {
  if (skipWithoutChromium()) return;
  let t: TestApi;
  let server: ServerType;
  let base: string;
  let browser: Browser;
  beforeAll(async () => {
    t = await createTestApi();
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: t.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  it('loads every asset from the service, fails no request, and shows the stage-account operation', async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    const foreign: string[] = [];
    page.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText ?? ''}`));
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.url()} ${response.status()}`);
    });
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
    });
    const res = await page.goto(`${base}/docs`, { waitUntil: 'networkidle' });
    expect(res?.status()).toBe(200);
    await expect
      .poll(async () => (await page.content()).includes('/v1/data-import/account-import-process/create-or-update/'), { timeout: 20_000 })
      .toBe(true);
    expect(failed).toEqual([]);
    expect(foreign).toEqual([]);
  }, 60_000);
});
