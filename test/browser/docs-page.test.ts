import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, pageIcon, skipWithoutChromium, watchPage } from '../support/browser.js';
import { createTestApi, type TestApi } from '../support/ledger.js';

/** Words of the buttons hosted reference pages add (an AI chat, an MCP server, hosting, sharing): none belongs on an offline page. */
const HOSTED_SERVICE = /ask ai|mcp|deploy|share|publish|open in|run in|postman|scalar|swagger\.io|validator/i;

/**
 * The reference page in a real browser: it loads with no failed request, nothing from the internet, no
 * console error (its icon included), shows the operations, and offers no hosted service.
 */
describe('GET /docs/ in headless Chromium', () => {
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

  it('loads every asset from the service, fails no request, logs no console error, and shows the stage-account operation', async () => {
    const page = await browser.newPage();
    const trouble = watchPage(page, base);
    const res = await page.goto(`${base}/docs/`, { waitUntil: 'networkidle' });
    expect(res?.status()).toBe(200);
    const operation = page.locator('.opblock').filter({ has: page.getByText('Stage an account', { exact: true }) });
    await expect.poll(() => operation.count(), { timeout: 20_000 }).toBe(1);
    // Swagger UI breaks long paths with zero-width spaces: compare the path without them.
    expect((await operation.locator('.opblock-summary-path').innerText()).replace(/\u200b/g, '')).toBe('/v1/data-import/account-import-process/create-or-update/');
    expect(await pageIcon(page)).toEqual({ status: 200, type: 'image/svg+xml' });
    expect(trouble).toEqual({ failed: [], foreign: [], consoleErrors: [] });
    await page.close();
  }, 60_000);

  it('offers no hosted-service button or link: every control and link stays on this page', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/docs/`, { waitUntil: 'networkidle' });
    await expect.poll(() => page.locator('.opblock').count(), { timeout: 20_000 }).toBeGreaterThan(10);
    const controls = await page.locator('button, a, [role="button"]').evaluateAll((elements) =>
      elements.map((element) => ({ text: (element.textContent ?? '').trim(), label: element.getAttribute('aria-label') ?? '', href: element.getAttribute('href') })),
    );
    expect(controls.filter((control) => HOSTED_SERVICE.test(`${control.text} ${control.label}`))).toEqual([]);
    expect(controls.filter((control) => control.href !== null && /^[a-z]+:/i.test(control.href) && !control.href.startsWith(base))).toEqual([]);
    await page.close();
  }, 60_000);

  it('answers /docs as /dashboard is answered: a redirect to the page with the trailing slash', async () => {
    for (const page of ['/docs', '/dashboard']) {
      const res = await fetch(`${base}${page}`, { redirect: 'manual' });
      expect(res.status, page).toBe(301);
      expect(res.headers.get('location'), page).toBe(`${page}/`);
    }
    const tab = await browser.newPage();
    const trouble = watchPage(tab, base);
    await tab.goto(`${base}/docs`, { waitUntil: 'networkidle' });
    expect(new URL(tab.url()).pathname).toBe('/docs/');
    await expect.poll(() => tab.locator('.opblock').count(), { timeout: 20_000 }).toBeGreaterThan(10);
    expect(trouble).toEqual({ failed: [], foreign: [], consoleErrors: [] });
    await tab.close();
  }, 60_000);

  it('serves the icon both pages name, without a token', async () => {
    const res = await fetch(`${base}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(await res.text()).toMatch(/^<svg /);
  });
});
