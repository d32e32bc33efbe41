import { existsSync } from 'node:fs';
import { skipBecause } from './skip.js';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it where missing). */
export const CHROMIUM = process.env['LEDGER_TEST_CHROMIUM'] ?? '/usr/bin/chromium';

/**
 * True when the browser tests cannot run here, after registering a skipped
 * test that says why. Under CI=true a missing browser is a failure, never a
 * silent skip: the tests run and fail at launch.
 */
export function skipWithoutChromium(): boolean {
  return skipBecause(existsSync(CHROMIUM) || process.env['CI'] === 'true' ? null : `browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
}

/**
 * Headless Chromium as a user behind a firewall has it: no background
 * connections of its own (the machine's network is closed; a page that asks
 * the internet for anything shows up as a failed request).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** What a page did that a user behind a firewall would see go wrong: failed loads, requests off `base`, console errors. */
export interface PageTrouble {
  readonly failed: string[];
  readonly foreign: string[];
  readonly consoleErrors: string[];
}

/**
 * Records, from now on, every request of `page` that fails or answers 400 or more (but those `ignore`
 * names), every request that leaves `base`, and every console error or uncaught exception.
 */
export function watchPage(page: Page, base: string, ignore: (url: string) => boolean = () => false): PageTrouble {
  const trouble: PageTrouble = { failed: [], foreign: [], consoleErrors: [] };
  page.on('requestfailed', (request) => {
    if (!ignore(request.url())) trouble.failed.push(`${request.url()} ${request.failure()?.errorText ?? ''}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) trouble.failed.push(`${response.url()} ${response.status()}`);
  });
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:')) trouble.foreign.push(url);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') trouble.consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => trouble.consoleErrors.push(`uncaught: ${error.message}`));
  return trouble;
}

/**
 * The icon `page` names, fetched as the browser would (headless Chromium asks for none by itself, so a
 * missing icon would go unseen): null when the page names none.
 */
export function pageIcon(page: Page): Promise<{ status: number; type: string | null } | null> {
  return page.evaluate<{ status: number; type: string | null } | null>(`(async () => {
    const link = document.querySelector('link[rel="icon"]');
    if (!link) return null;
    const res = await fetch(link.href);
    return { status: res.status, type: res.headers.get('content-type') };
  })()`);
}
