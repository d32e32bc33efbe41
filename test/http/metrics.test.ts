import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, TEAM, createTestApi, loadExample, testStore, type TestApi } from '../support/ledger.js';
import { servedMetrics, type Scrape } from '../support/metrics.js';
import { UNMATCHED_ROUTE } from '../../src/http/metrics-middleware.js';
import { commandMetadata } from '../../src/application/command-handler.js';
import { ConcurrencyError } from '../../src/store/event-store.js';

/**
 * GET /metrics, read back from the metrics port after real requests to the real app over a real
 * ledger (SQLite file, or PostgreSQL in the postgres project).
 */

const STAGE = '/v1/data-import/account-import-process/create-or-update/';
const PROCESS = '/v1/data-import/account-import-process/process/';
const STATUS_TEMPLATE = '/v1/data-import/account-transfer-status/:supplier/:ext/';
const stagePayload = (ext: string) => ({ ...structuredClone(loadExample('account-domestic.json')), external_account_number: ext });

let api: TestApi;
let served: Awaited<ReturnType<typeof servedMetrics>>;
let token: string;

beforeEach(async () => {
  served = await servedMetrics();
  api = await createTestApi({ metrics: served.metrics });
  token = await accessToken(api, api.key);
});

afterEach(async () => {
  await served.server.close();
  await api.close();
});

const stageLabels = (statusClass: string) => ({ method: 'POST', route: STAGE, status_class: statusClass });

/** Sum of every sample of `name` whose labels include `labels`. */
const total = (scrape: Scrape, name: string, labels: Record<string, string> = {}) =>
  scrape
    .series(name)
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

describe('GET /metrics', () => {
  it("serves prom-client's process and Node.js metrics in the Prometheus text format", async () => {
    const res = await fetch(`http://127.0.0.1:${served.server.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    expect((await fetch(`http://127.0.0.1:${served.server.port}/other`)).status).toBe(404);
  });

  it('counts requests and events by the right amounts, and fills the latency buckets, under the route template', async () => {
    const before = await served.scrape();
    for (const ext of ['MET-1', 'MET-2', 'MET-3']) expect((await api.post(STAGE, stagePayload(ext), token)).status).toBe(201);
    expect((await api.post(STAGE, { external_account_number: 'MET-bad' }, token)).status).toBe(400);
    const after = await served.scrape();

    const delta = (name: string, labels?: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
    expect(delta('ledger_http_requests_total', stageLabels('2xx'))).toBe(3);
    expect(delta('ledger_http_requests_total', stageLabels('4xx'))).toBe(1);
    expect(delta('ledger_http_request_duration_seconds_count', stageLabels('2xx'))).toBe(3);
    expect(delta('ledger_http_request_duration_seconds_bucket', { ...stageLabels('2xx'), le: '+Inf' })).toBe(3);
    // Buckets are cumulative: each is at most the next, and the +Inf one holds every observation.
    const buckets = after
      .series('ledger_http_request_duration_seconds_bucket')
      .filter((s) => s.labels['route'] === STAGE && s.labels['status_class'] === '2xx')
      .map((s) => s.value);
    expect(buckets.length).toBeGreaterThan(5);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    expect(after.value('ledger_http_request_duration_seconds_sum', stageLabels('2xx'))).toBeGreaterThan(0);
    expect(after.value('ledger_http_requests_in_flight')).toBe(0);

    expect(delta('ledger_events_appended_total', { type: 'AccountStaged' })).toBe(3);
    expect(delta('ledger_store_batch_units_count')).toBeGreaterThanOrEqual(1);
    expect(delta('ledger_store_batch_units_sum')).toBeGreaterThanOrEqual(3);
    expect(delta('ledger_store_batch_commit_seconds_count')).toBe(delta('ledger_store_batch_units_count'));
    // The writers' lock is PostgreSQL's: its histograms fill there only.
    if (testStore() === 'postgres') expect(delta('ledger_pg_write_lock_held_seconds_count')).toBe(delta('ledger_store_batch_units_count'));
    else expect(after.value('ledger_pg_write_lock_held_seconds_count')).toBe(0);
  });

  it('counts commands a decider refused by error code, and concurrency conflicts', async () => {
    const before = await served.scrape();
    // Processing an account that was never staged: the decider refuses it.
    const refused = await api.post(PROCESS, { external_account_number: 'NEVER-STAGED', import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const code = ((await refused.json()) as { code: string }).code;
    const stream = accountImportProcessStreamId(SUPPLIER, 'CONFLICT-1');
    await expect(
      api.ledger.store.appendToStream(stream, 3, [], { metadata: commandMetadata(api.ledger, { actor: 'test', requestId: null }) }),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    const after = await served.scrape();
    expect(after.value('ledger_commands_refused_total', { code }) - before.value('ledger_commands_refused_total', { code })).toBe(1);
    expect(after.value('ledger_store_concurrency_conflicts_total') - before.value('ledger_store_concurrency_conflicts_total')).toBe(1);
  });

  it('keeps the route label set bounded: 1,000 distinct paths make no new label per path', async () => {
    for (let i = 0; i < 500; i++) expect((await api.app.request(`/no/such/path/${i}/`)).status).toBe(404);
    for (let i = 0; i < 500; i++) expect((await api.get(`/v1/data-import/account-transfer-status/${SUPPLIER}/NOPE-${i}/`, token)).status).toBe(404);
    const scrape = await served.scrape();
    const routes = new Set(scrape.series('ledger_http_requests_total').map((s) => s.labels['route']));
    expect(routes.size).toBeLessThan(20);
    expect(scrape.value('ledger_http_requests_total', { method: 'GET', route: UNMATCHED_ROUTE, status_class: '4xx' })).toBe(500);
    expect(scrape.value('ledger_http_requests_total', { method: 'GET', route: STATUS_TEMPLATE, status_class: '4xx' })).toBe(500);
    expect(scrape.text).not.toContain('NOPE-');
    expect(scrape.text).not.toContain('/no/such/path/');
    // Every series of every metric: bounded by the route table and the code lists, not by the paths.
    expect(scrape.samples.size).toBeLessThan(1_000);
  });

  it('a request refused by authentication is counted under its endpoint template', async () => {
    const res = await api.app.request(`/v1/data-import/account-transfer-status/${SUPPLIER}/ANY-1/`);
    expect(res.status).toBe(401);
    const scrape = await served.scrape();
    expect(scrape.value('ledger_http_requests_total', { method: 'GET', route: STATUS_TEMPLATE, status_class: '4xx' })).toBe(1);
  });

  it('reads the work queues, projection positions and per-supplier figures at scrape time', async () => {
    served.metrics.watch({
      logPosition: () => api.ledger.log.lastPosition(),
      projections: ['account_import_processes'],
      workQueues: () => api.ledger.read.workQueueFigures(),
      supplierFigures: (limit) => api.ledger.read.supplierFigures(limit),
    });
    for (const ext of ['FIG-1', 'FIG-2', 'FIG-3']) expect((await api.post(STAGE, stagePayload(ext), token)).status).toBe(201);
    const processed = await api.post(PROCESS, { external_account_number: 'FIG-1', import_supplier_code: SUPPLIER, operations_team_name: TEAM }, token);
    expect(processed.status).toBe(201);
    const scrape = await served.scrape();
    expect(scrape.value('ledger_supplier_accounts', { import_supplier: SUPPLIER, state: 'pending' })).toBe(2);
    expect(scrape.value('ledger_supplier_accounts', { import_supplier: SUPPLIER, state: 'imported' })).toBe(1);
    expect(scrape.value('ledger_supplier_accounts', { import_supplier: SUPPLIER, state: 'failing' })).toBe(0);
    const head = await api.ledger.log.lastPosition();
    expect(scrape.value('ledger_log_position')).toBe(head);
    expect(scrape.value('ledger_projection_position', { projection: 'account_import_processes' })).toBe(head);
    for (const state of ['pending', 'in_flight', 'errored']) expect(scrape.samples.has(`ledger_supply_point_requests{state="${state}",supply_type="GAS"}`)).toBe(true);
    expect(total(scrape, 'ledger_welcome_emails')).toBe(0);
    expect(scrape.series('ledger_scheduled_account_creations').map((s) => s.labels['state']).sort()).toEqual(['running', 'waiting']);
    expect(scrape.value('ledger_ready')).toBe(1);
  });
});
