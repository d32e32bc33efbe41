import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import { packageRoot } from '../../package-root.js';
import type { AppEnv } from '../env.js';
import { FAVICON_PATH } from './favicon.js';

export const DASHBOARD_PATH = '/dashboard/';
const ASSETS = `${DASHBOARD_PATH}assets`;

/** The page's script (TypeScript, with uPlot), bundled by esbuild on first request and kept. */
const SCRIPT_SOURCE = 'src/dashboard/main.ts';
const STYLES = 'src/dashboard/dashboard.css';
/** uPlot's own styles, from its package: nothing comes from a CDN. */
const UPLOT_STYLES = 'node_modules/uplot/dist/uPlot.min.css';

const count = (name: string, label: string) =>
  `<div class="${name}"><dt id="count-${name}-label">${label}</dt><dd data-testid="count-${name}" aria-labelledby="count-${name}-label">0</dd></div>`;
const transfer = (status: string, label: string) => `<tr><th scope="row">${label}</th><td class="n" data-testid="transfer-${status}">0</td></tr>`;

/**
 * The page: a static shell the script fills in. No token is needed for it
 * (nor for its assets); every data call it makes carries one.
 */
const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Migration progress · import-ledger</title>
    <link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml" />
    <link rel="stylesheet" href="${ASSETS}/uPlot.min.css" />
    <link rel="stylesheet" href="${ASSETS}/dashboard.css" />
    <script src="${ASSETS}/dashboard.js" defer></script>
  </head>
  <body>
    <header>
      <h1>Migration progress</h1>
      <span class="muted">import-ledger</span>
    </header>
    <main>
      <section id="login" class="panel" aria-labelledby="login-heading">
        <h2 id="login-heading">Sign in</h2>
        <form id="login-form">
          <label for="api_key">API key</label>
          <input id="api_key" name="api_key" type="password" autocomplete="off" required size="48" />
          <button type="submit">Sign in</button>
          <p id="login-error" class="error" role="alert"></p>
          <p class="muted">The key is exchanged for a token and never stored; the token is kept in this tab only.</p>
        </form>
      </section>
      <section id="supplier-picker" class="panel" hidden aria-label="Supplier">
        <label for="supplier">Import supplier</label>
        <select id="supplier" name="supplier"></select>
        <button id="sign-out" type="button">Sign out</button>
      </section>
      <div id="board" hidden>
        <div class="grid">
          <section class="panel wide" aria-labelledby="accounts-heading">
            <h2 id="accounts-heading">Accounts</h2>
            <dl class="counts">
              ${count('total', 'Total')}${count('pending', 'Pending')}${count('imported', 'Imported')}${count('skipped', 'Skipped')}${count('failing', 'Failing')}
            </dl>
            <label for="progress">Imported of total</label>
            <progress id="progress" max="1" value="0"></progress>
            <p><span id="progress-text"></span> · status <strong id="supplier-status"></strong> · first staged <span id="first-staged"></span> · last activity <span id="last-activity"></span></p>
            <p data-testid="last-verification">Last verification: <span id="last-verification">never</span></p>
          </section>
          <section class="panel" aria-labelledby="chart-heading">
            <h2 id="chart-heading">Imports per minute, since the migration began (an hour at most)</h2>
            <div id="chart" role="img" aria-label="Imports per minute."></div>
          </section>
          <section class="panel" aria-labelledby="transfer-heading">
            <h2 id="transfer-heading">Transfer status of imported accounts</h2>
            <table data-testid="transfer-status">
              <tbody>${transfer('PENDING', 'Pending')}${transfer('IN_PROGRESS', 'In progress')}${transfer('REJECTED', 'Rejected')}${transfer('COMPLETED', 'Completed')}</tbody>
            </table>
          </section>
          <section class="panel wide" aria-labelledby="failures-heading">
            <h2 id="failures-heading">What fails</h2>
            <table data-testid="failures-summary">
              <caption class="muted">Failing accounts per error code and field; choose a row to see them.</caption>
              <thead><tr><th scope="col">Code</th><th scope="col">Field (attr)</th><th scope="col" class="n">Accounts</th></tr></thead>
              <tbody></tbody>
            </table>
            <div id="failing" data-testid="failing-accounts" hidden>
              <h3 id="failing-h"></h3>
              <table>
                <thead><tr><th scope="col">Account</th><th scope="col">Step</th><th scope="col">Code</th><th scope="col">Errors</th><th scope="col">When</th></tr></thead>
                <tbody></tbody>
              </table>
            </div>
          </section>
          <section class="panel wide" aria-labelledby="webhooks-heading">
            <h2 id="webhooks-heading">Webhooks</h2>
            <table data-testid="webhooks">
              <caption class="muted">The supplier's endpoints: lag is the events in the log not yet delivered; waiting, the events kept for a retry.</caption>
              <thead><tr><th scope="col">URL</th><th scope="col">Status</th><th scope="col" class="n">Lag</th><th scope="col" class="n">Waiting</th><th scope="col">Last failure</th></tr></thead>
              <tbody></tbody>
            </table>
          </section>
          <section class="panel wide" aria-labelledby="live-heading">
            <h2 id="live-heading">Live events</h2>
            <p id="live-state" class="muted" aria-live="polite">Live: connecting…</p>
            <ol class="live" data-testid="live-events" aria-labelledby="live-heading"></ol>
          </section>
        </div>
      </div>
    </main>
  </body>
</html>
`;

async function bundleScript(): Promise<string> {
  // Loaded on first use: the service needs esbuild only when someone opens the page.
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: packageRoot(),
    entryPoints: [SCRIPT_SOURCE],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/**
 * GET /dashboard/ and its assets: no token (the page asks for a key and sends tokens with its data calls).
 * `/dashboard` redirects to `/dashboard/`, as `/docs` redirects to `/docs/`.
 */
export function dashboardRoutes() {
  let script: Promise<string> | null = null;
  let styles: Promise<string> | null = null;
  let chartStyles: Promise<string> | null = null;
  const css = () => ({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' });
  return new Hono<AppEnv>()
    .get('/dashboard', (c) => c.redirect(DASHBOARD_PATH, 301))
    .get(DASHBOARD_PATH, (c) => c.html(page))
    .get(`${ASSETS}/dashboard.js`, async (c) => {
      script ??= bundleScript().catch((error: unknown) => {
        script = null;
        throw error;
      });
      return c.body(await script, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=3600' });
    })
    .get(`${ASSETS}/dashboard.css`, async (c) => {
      styles ??= readFile(join(packageRoot(), STYLES), 'utf8');
      return c.body(await styles, 200, css());
    })
    .get(`${ASSETS}/uPlot.min.css`, async (c) => {
      chartStyles ??= readFile(join(packageRoot(), UPLOT_STYLES), 'utf8');
      return c.body(await chartStyles, 200, css());
    });
}
