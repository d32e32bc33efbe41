/**
 * The migration dashboard's script (GET /dashboard/), bundled with uPlot and served by the service, so
 * nothing is fetched from elsewhere. The API key is exchanged for a token and never stored; the tokens live
 * in sessionStorage only (gone with the tab). The live list reads the event feed's server-sent events with
 * fetch (EventSource cannot send the Authorization header), resuming after a drop with Last-Event-ID.
 */
import type { operations } from '../client/api-types.js';
import { drawChart } from './chart.js';
import { showWebhooks, type Endpoint } from './webhooks.js';

const API = '/v1/data-import';
const SESSION_KEY = 'import-ledger.dashboard.session';
/** Refresh this long before the token's expiry. */
const REFRESH_AHEAD_MS = 5 * 60_000;
/** Live events kept in the list. */
const LIVE_MAX = 50;
/** How far back (log positions) the live list starts, so it is not empty on a quiet migration. */
const LIVE_BACKLOG = 500;

interface Session {
  readonly token: string;
  readonly refreshToken: string;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
}

/** The 200 body of an operation of the API's document: the generated client's types (src/client/api-types.ts). */
type Ok<O extends keyof operations> = operations[O]['responses'] extends { 200: { content: { 'application/json': infer B } } } ? B : never;
type Progress = Ok<'importProgress'>;
type SummaryRow = Ok<'importFailureSummary'>[number];
type Failure = Ok<'importFailures'>[number];
type FeedEvent = Ok<'eventsFeed'>['events'][number];

const $ = <T extends HTMLElement>(selector: string): T => {
  const found = document.querySelector<T>(selector);
  if (!found) throw new Error(`dashboard: no ${selector}`);
  return found;
};
const text = (selector: string, value: string) => {
  $(selector).textContent = value;
};
/** An element with its text or children, and its properties (`className`, `value`, `dateTime`...). */
const el = <K extends keyof HTMLElementTagNameMap>(tag: K, content?: string | Node[], props: Partial<HTMLElementTagNameMap[K]> = {}) => {
  const node = Object.assign(document.createElement(tag), props);
  if (typeof content === 'string') node.textContent = content;
  else if (content) node.append(...content);
  return node;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

// ---- The session: the token in sessionStorage only, refreshed ahead of expiry.

let session: Session | null = null;
let refreshTimer: number | undefined;

/** When the token expires by this browser's clock: its lifetime (`exp` less `iat`) from now, so a skewed clock still refreshes in time. */
function expiryOf(token: string): number {
  let lifetimeMs = 60 * 60_000;
  try {
    const claims = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number; iat?: number };
    if (typeof claims.exp === 'number' && typeof claims.iat === 'number' && claims.exp > claims.iat) lifetimeMs = (claims.exp - claims.iat) * 1000;
  } catch {
    // Not a JWT: the default.
  }
  return Date.now() + lifetimeMs;
}

async function obtainToken(input: { APIKey: string } | { refreshToken: string }): Promise<Session> {
  const res = await fetch('/v1/graphql/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation Obtain($input: ObtainTokenInput!) { obtainToken(input: $input) { token refreshToken refreshExpiresIn } }',
      variables: { input },
    }),
  });
  const body = (await res.json().catch(() => null)) as { data?: { obtainToken: { token: string; refreshToken: string } | null }; errors?: { message: string }[] } | null;
  const issued = body?.data?.obtainToken;
  if (!issued) throw new Error(body?.errors?.[0]?.message ?? `The service answered ${res.status}.`);
  return { token: issued.token, refreshToken: issued.refreshToken, expiresAt: expiryOf(issued.token) };
}

function keepSession(next: Session | null): void {
  session = next;
  window.clearTimeout(refreshTimer);
  if (next === null) {
    sessionStorage.removeItem(SESSION_KEY);
    return;
  }
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(next));
  // Never sooner than in 30 s: a refresh that keeps failing signs out rather than looping.
  refreshTimer = window.setTimeout(() => void refresh(), Math.max(30_000, next.expiresAt - Date.now() - REFRESH_AHEAD_MS));
}

async function refresh(): Promise<boolean> {
  if (!session) return false;
  try {
    keepSession(await obtainToken({ refreshToken: session.refreshToken }));
    return true;
  } catch {
    signOut('Your session ended: sign in again.');
    return false;
  }
}

/** A GET of the API with the token (the JSON pages and the event stream alike); one refresh and retry on a 401. */
async function authorized(path: string, init: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    if (!session) throw new Error('not signed in');
    const res = await fetch(`${API}${path}`, { ...init, headers: { ...init.headers, authorization: `Token ${session.token}` } });
    if (res.status !== 401 || attempt > 0 || !(await refresh())) return res;
  }
}

async function api<T>(path: string): Promise<T> {
  const res = await authorized(path);
  const body = (await res.json()) as T & { detail?: string };
  if (!res.ok) throw new Error(body.detail ?? `The service answered ${res.status}.`);
  return body;
}

// ---- The board of one supplier.

let supplier: string | null = null;
let live: AbortController | null = null;
let reloadTimer: number | undefined;
let selected: SummaryRow | null = null;

function signOut(message = ''): void {
  keepSession(null);
  live?.abort();
  supplier = null;
  $('#board').hidden = true;
  $('#supplier-picker').hidden = true;
  $('#login').hidden = false;
  text('#login-error', message);
}

async function showSuppliers(): Promise<void> {
  const suppliers = await api<Ok<'importSuppliers'>>('/import-suppliers/');
  const select = $<HTMLSelectElement>('#supplier');
  select.replaceChildren(...suppliers.map((s) => el('option', `${s.import_supplier} (${s.status})`, { value: s.import_supplier })));
  $('#login').hidden = true;
  $('#supplier-picker').hidden = false;
  if (suppliers.length > 0) await choose(suppliers[0]!.import_supplier);
  else text('#login-error', 'This key is scoped to no supplier.');
}

async function choose(code: string): Promise<void> {
  supplier = code;
  selected = null;
  $('#failing').hidden = true;
  $('#board').hidden = false;
  $<HTMLOListElement>('[data-testid="live-events"]').replaceChildren();
  const progress = await loadCounts();
  follow(code, Math.max(0, progress.feed_position - LIVE_BACKLOG));
}

async function loadCounts(): Promise<Progress> {
  const code = supplier!;
  const [progress, summary, endpoints] = await Promise.all([
    api<Progress>(`/import-progress/${encodeURIComponent(code)}/`),
    api<SummaryRow[]>(`/import-failures/${encodeURIComponent(code)}/summary/?limit=50`),
    api<Endpoint[]>(`/webhook-endpoints/?import_supplier_code=${encodeURIComponent(code)}`),
  ]);
  if (code !== supplier) return progress;
  for (const name of ['pending', 'imported', 'skipped', 'failing', 'total'] as const) {
    text(`[data-testid="count-${name}"]`, String(progress.accounts[name]));
  }
  const bar = $<HTMLProgressElement>('#progress');
  bar.max = Math.max(progress.accounts.total, 1);
  bar.value = progress.accounts.imported;
  const percent = progress.accounts.total === 0 ? 0 : Math.floor((100 * progress.accounts.imported) / progress.accounts.total);
  text('#progress-text', `${progress.accounts.imported} of ${progress.accounts.total} imported (${percent}%)`);
  text('#supplier-status', progress.status);
  text('#first-staged', when(progress.first_staged_at));
  text('#last-activity', when(progress.last_activity_at));
  for (const status of ['PENDING', 'IN_PROGRESS', 'REJECTED', 'COMPLETED'] as const) {
    text(`[data-testid="transfer-${status}"]`, String(progress.transfer_status[status]));
  }
  showVerification(progress.last_verification);
  drawChart($('#chart'), progress.imports_per_minute, progress.first_staged_at);
  showSummary(summary);
  showWebhooks($<HTMLTableSectionElement>('[data-testid="webhooks"] tbody'), endpoints);
  return progress;
}

/** The last `import-ledger verify`: when, by which key, whether the folder and the service agreed, and what differed. */
function showVerification(last: Progress['last_verification']): void {
  if (!last) {
    text('#last-verification', 'never');
    return;
  }
  const differing = Object.entries(last.summary)
    .map(([kind, c]) => [kind, c.missing + c.extra + c.different] as const)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind} ${n}`);
  const identical = Object.values(last.summary).reduce((sum, c) => sum + c.identical, 0);
  const verdict = last.agree ? `agree (${identical} items identical)` : `differ: ${differing.join(', ')}`;
  text('#last-verification', `${when(last.verified_at)} by key ${last.verified_by}: ${verdict}`);
}

function showSummary(rows: SummaryRow[]): void {
  const body = $<HTMLTableSectionElement>('[data-testid="failures-summary"] tbody');
  if (rows.length === 0) {
    body.replaceChildren(el('tr', [el('td', 'No failing accounts.', { className: 'muted', colSpan: 3 })]));
    return;
  }
  body.replaceChildren(
    ...rows.map((row) => {
      const open = el('button', row.code, { className: 'link', type: 'button' });
      open.setAttribute('aria-label', `Show the accounts failing on ${row.code}${row.attr ? ` at ${row.attr}` : ''}`);
      const cells = [el('td', [open]), el('td', [el('code', row.attr ?? '—')]), el('td', String(row.accounts), { className: 'n' })];
      const tr = el('tr', cells, { className: 'open' });
      if (selected && selected.code === row.code && selected.attr === row.attr) tr.classList.add('selected');
      tr.addEventListener('click', () => void openFailures(row));
      return tr;
    }),
  );
}

/** The failing accounts of a summary row: those whose latest refusal has its code (and path). */
async function openFailures(row: SummaryRow): Promise<void> {
  selected = row;
  const failures = await api<Failure[]>(`/import-failures/${encodeURIComponent(supplier!)}/?code=${encodeURIComponent(row.code)}&limit=200`);
  const matching = failures.filter((f) => (f.errors.length === 0 ? row.attr === null : f.errors.some((e) => e.code === row.code && e.attr === row.attr)));
  text('#failing-h', `Accounts failing on ${row.code}${row.attr ? ` at ${row.attr}` : ''}`);
  $<HTMLTableSectionElement>('#failing tbody').replaceChildren(
    ...matching.map((f) =>
      el('tr', [
        el('td', f.external_account_number),
        el('td', f.step),
        el('td', [el('code', f.code)]),
        el('td', f.errors.length === 0 ? '—' : f.errors.map((e) => `${e.code}${e.attr ? ` (${e.attr})` : ''}`).join(', ')),
        el('td', when(f.failed_at)),
      ]),
    ),
  );
  $('#failing').hidden = false;
  for (const tr of document.querySelectorAll('[data-testid="failures-summary"] tbody tr')) tr.classList.remove('selected');
}

const reload = () => {
  if (supplier) void loadCounts().catch(() => undefined);
};

function scheduleReload(): void {
  window.clearTimeout(reloadTimer);
  reloadTimer = window.setTimeout(reload, 250);
}

// ---- The live list: the feed's server-sent events through fetch, resumed with Last-Event-ID.

/** A text field of an event's data, or '' (the data's fields depend on its type). */
const dataText = (event: FeedEvent, name: string): string => {
  const value = event.data[name];
  return typeof value === 'string' ? value : '';
};

function showEvent(event: FeedEvent): void {
  const list = $<HTMLOListElement>('[data-testid="live-events"]');
  const time = el('time', new Date(event.timestamp).toLocaleTimeString(), { dateTime: event.timestamp });
  const subject = dataText(event, 'external_account_number') || dataText(event, 'external_business_identifier');
  list.prepend(el('li', [time, el('code', event.type), el('span', subject)]));
  while (list.children.length > LIVE_MAX) list.lastElementChild!.remove();
}

function follow(code: string, from: number): void {
  live?.abort();
  const controller = new AbortController();
  live = controller;
  let last = from;
  let resumed = false;
  const onBlock = (block: string) => {
    let id: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (id !== null && /^\d+$/.test(id)) last = Number(id);
    if (data.length === 0) return;
    const event = JSON.parse(data.join('\n')) as FeedEvent;
    if (dataText(event, 'import_supplier') !== code) return;
    showEvent(event);
    scheduleReload();
  };
  void (async () => {
    while (!controller.signal.aborted && session) {
      try {
        const headers = { accept: 'text/event-stream', ...(resumed ? { 'last-event-id': String(last) } : {}) };
        const res = await authorized(`/events/?after=${last}`, { headers, signal: controller.signal });
        if (!res.ok || !res.body) throw new Error(`feed answered ${res.status}`);
        text('#live-state', 'Live: connected.');
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, '\n');
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            onBlock(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch {
        if (controller.signal.aborted) return;
      }
      resumed = true;
      text('#live-state', 'Live: reconnecting…');
      await sleep(1000);
    }
  })();
}

// ---- Wiring.

function start(): void {
  $('#login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = $<HTMLInputElement>('input[name="api_key"]');
    text('#login-error', '');
    void obtainToken({ APIKey: input.value.trim() })
      .then(async (issued) => {
        input.value = '';
        keepSession(issued);
        await showSuppliers();
      })
      .catch((error: Error) => text('#login-error', error.message));
  });
  $('#supplier').addEventListener('change', (event) => void choose((event.target as HTMLSelectElement).value));
  $('#sign-out').addEventListener('click', () => signOut());
  window.setInterval(reload, 30_000);
  const kept = sessionStorage.getItem(SESSION_KEY);
  if (kept) {
    try {
      keepSession(JSON.parse(kept) as Session);
      void showSuppliers().catch(() => signOut());
    } catch {
      signOut();
    }
  }
}

start();
