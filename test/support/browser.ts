import { existsSync } from 'node:fs';
import { it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it where missing). */
export const CHROMIUM = process.env['LEDGER_TEST_CHROMIUM'] ?? '/usr/bin/chromium';

/**
 * True when the browser tests cannot run here, after registering a skipped
 * test that says why. Under CI=true a missing browser is a failure, never a
 * silent skip: the tests run and fail at launch.
 */
export function skipWithoutChromium(): boolean {
  if (existsSync(CHROMIUM) || process.env['CI'] === 'true') return false;
  it.skip(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`, () => undefined);
  return true;
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
