import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey, createImportSupplier } from '../../src/application/operator.js';
import { disableWebhookEndpoint, enableWebhookEndpoint } from '../../src/application/webhook-endpoints.js';
import { MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER } from '../../src/domain/webhook-endpoint/decider.js';
import type { AttemptRow } from '../../src/store/webhook-storage.js';
import { expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER, createTestApi, operator, type TestApi } from '../support/ledger.js';

/** Webhook endpoints through the real app, on the test store (docs/webhooks.md). */

const BASE = '/v1/data-import/webhook-endpoints/';
const PUBLIC_URL = 'https://93.184.215.14/hooks/ledger';
const engine = { actor: 'system:webhooks', requestId: null };

interface Created {
  id: string;
  url: string;
  import_supplier_code: string;
  event_types: string[];
  description: string | null;
  status: string;
  secret: string;
  created_at: string;
}

let api: TestApi;
let token: string;
let otherToken: string;

async function create(body: Record<string, unknown> = {}, withToken = token): Promise<Created> {
  const res = await api.post(BASE, { import_supplier_code: SUPPLIER, url: PUBLIC_URL, ...body }, withToken);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Created;
}

const eventCount = async () => Number((await api.execute('SELECT COUNT(*) AS n FROM events'))[0]?.['n']);
const get = async (path: string, withToken = token) => api.get(path, withToken);

// The keys themselves, as the platform accepts them: unlike a token they outlive the clock moved by hours here.
beforeEach(async () => {
  api = await createTestApi({ exampleProducts: false });
  token = api.key;
  otherToken = api.otherKey;
});
afterEach(() => api.close());

describe('POST webhook-endpoints/', () => {
  it('registers an enabled endpoint and shows its secret once: never in the log, never read back', async () => {
    const created = await create({ event_types: ['data_import.*', 'account.created-v1', 'data_import.*'], description: 'CRM' });
    expect(created).toEqual({
      id: expect.stringMatching(/^we_[0-9a-f]{32}$/),
      url: PUBLIC_URL,
      import_supplier_code: SUPPLIER,
      event_types: ['data_import.*', 'account.created-v1'],
      description: 'CRM',
      status: 'enabled',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: '2026-11-21T10:00:00.000Z',
    });
    expect(Buffer.from(created.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const log = JSON.stringify(await api.execute("SELECT type, data, metadata FROM events WHERE stream_id LIKE 'webhook-endpoint:%'"));
    expect(log).toContain('WebhookEndpointCreated');
    expect(log).not.toContain(created.secret);
    expect(log).not.toContain('whsec_');
    expect(await api.ledger.webhookSecrets.signingSecrets(created.id, api.clock.read())).toEqual([created.secret]);

    const read = await get(`${BASE}${created.id}/`);
    expect(read.status).toBe(200);
    const text = await read.text();
    expect(text).not.toContain(created.secret);
    expect(JSON.parse(text)).toEqual({
      id: created.id,
      import_supplier_code: SUPPLIER,
      url: PUBLIC_URL,
      event_types: ['data_import.*', 'account.created-v1'],
      description: 'CRM',
      status: 'enabled',
      disabled_reason: null,
      disabled_detail: null,
      disabled_at: null,
      created_at: created.created_at,
      updated_at: created.created_at,
      // No relay has run for it yet: nothing delivered, nothing waiting, no failure.
      delivery: { position: null, lag_events: 0, waiting: 0, last_failure: null },
    });
    const plain = await create();
    expect(plain).toMatchObject({ event_types: [], description: null });
    expect(plain.secret).not.toBe(created.secret);
  });

  it('refuses another supplier with 403, and a body that breaks the schema with 400, writing nothing', async () => {
    const before = await eventCount();
    await expectErrorBody(await api.post(BASE, { import_supplier_code: OTHER_SUPPLIER, url: PUBLIC_URL }, token), 403, 'permission_denied');
    const cases: [unknown, string, string][] = [
      [{ import_supplier_code: SUPPLIER }, 'url', 'required'],
      [{ import_supplier_code: SUPPLIER, url: 7 }, 'url', 'invalid'],
      [{ import_supplier_code: SUPPLIER, url: PUBLIC_URL, event_types: ['account.created'] }, 'event_types.0', 'invalid_event_type'],
      [{ import_supplier_code: SUPPLIER, url: PUBLIC_URL, event_types: 'data_import.*' }, 'event_types', 'not_a_list'],
      [{ import_supplier_code: SUPPLIER, url: PUBLIC_URL, description: 'x'.repeat(501) }, 'description', 'max_length'],
      [{ import_supplier_code: SUPPLIER, url: PUBLIC_URL, events: ['data_import.*'] }, 'non_field_errors', 'unknown_field'],
    ];
    for (const [body, attr, code] of cases) {
      const error = await expectErrorBody(await api.post(BASE, body, token), 400, 'validation_error');
      expect(error.errors, JSON.stringify(body)).toContainEqual(expect.objectContaining({ attr, code }));
    }
    expect(await eventCount()).toBe(before);
    expect(await api.execute('SELECT * FROM webhook_secrets')).toEqual([]);
  });

  it('refuses URLs that are not public https, checked on the resolved addresses, with the reason in the item', async () => {
    const before = await eventCount();
    const refused: [string, string][] = [
      ['https://127.0.0.1/', 'private_address'],
      ['https://10.0.0.1/hooks', 'private_address'],
      ['https://[::1]/', 'private_address'],
      ['https://[::ffff:10.0.0.1]/', 'private_address'],
      ['https://169.254.169.254/latest/meta-data/', 'private_address'],
      ['https://localhost:8443/in', 'private_address'],
      ['http://93.184.215.14/hooks', 'https_required'],
      ['http://127.0.0.1/', 'https_required'],
      ['https://user:secret@93.184.215.14/', 'invalid_url'],
      ['not a url', 'invalid_url'],
      ['https://no-such-host.invalid/', 'unresolvable_host'],
    ];
    for (const [url, code] of refused) {
      const error = await expectErrorBody(await api.post(BASE, { import_supplier_code: SUPPLIER, url }, token), 400, 'webhook_url_refused');
      expect(error.errors, url).toEqual([expect.objectContaining({ attr: 'url', code })]);
    }
    expect(await eventCount()).toBe(before);
    expect(await api.execute('SELECT * FROM webhook_secrets')).toEqual([]);
  });

  it(`allows at most ${MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER} endpoints a supplier; a removed one makes room`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER; i++) ids.push((await create()).id);
    await expectErrorBody(await api.post(BASE, { import_supplier_code: SUPPLIER, url: PUBLIC_URL }, token), 400, 'webhook_endpoint_limit_reached');
    // The refused endpoint's secret is not kept.
    expect(await api.execute('SELECT * FROM webhook_secrets')).toHaveLength(MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER);
    // Another supplier has its own allowance.
    await create({ import_supplier_code: OTHER_SUPPLIER }, otherToken);
    expect((await api.post(`${BASE}${ids[0]}/delete/`, {}, token)).status).toBe(200);
    await create();
  });
});

describe('with LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', () => {
  let local: TestApi;
  beforeAll(async () => {
    local = await createTestApi({ exampleProducts: false, webhookDestinations: { allowPrivateNetworks: true } });
  });
  afterAll(() => local.close());

  it('admits loopback, private addresses and plain http', async () => {
    const localToken = local.key;
    for (const url of ['http://127.0.0.1:8080/hooks', 'https://10.0.0.1/', 'http://localhost/in', 'http://[::1]:9000/']) {
      const res = await local.post(BASE, { import_supplier_code: SUPPLIER, url }, localToken);
      expect(res.status, url).toBe(201);
    }
    await expectErrorBody(await local.post(BASE, { import_supplier_code: SUPPLIER, url: 'ftp://127.0.0.1/' }, localToken), 400, 'webhook_url_refused');
  });
});

describe('GET webhook-endpoints/ and GET webhook-endpoints/<id>/', () => {
  it("lists the key's suppliers' endpoints, by supplier then age, or the one supplier named", async () => {
    await createImportSupplier(api.ledger, { code: 'THIRD', status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    const { key } = await createApiKey(api.ledger, { suppliers: [SUPPLIER, OTHER_SUPPLIER], label: 'both' }, operator);
    const both = key;
    const a1 = await create({ description: 'first' });
    api.clock.advanceSeconds(1);
    const b1 = await create({ import_supplier_code: OTHER_SUPPLIER }, otherToken);
    const a2 = await create({ description: 'second' });
    const ids = async (path: string, withToken: string) => ((await (await get(path, withToken)).json()) as { id: string }[]).map((e) => e.id);
    // LEGACY_ENERGIE's first (by code), oldest first, though OTHER_SUPPLIER's came in between.
    expect(await ids(BASE, both)).toEqual([a1.id, a2.id, b1.id]);
    expect(await ids(BASE, token)).toEqual([a1.id, a2.id]);
    expect(await ids(`${BASE}?import_supplier_code=${OTHER_SUPPLIER}`, both)).toEqual([b1.id]);
    await expectErrorBody(await get(`${BASE}?import_supplier_code=${OTHER_SUPPLIER}`, token), 403, 'permission_denied');
    await expectErrorBody(await get(`${BASE}?import_supplier_code=THIRD`, token), 403, 'permission_denied');
    await expectErrorBody(await get(`${BASE}?import_supplier_code=A&import_supplier_code=B`, both), 400, 'invalid_query_parameter');
    // A removed endpoint leaves the list.
    await api.post(`${BASE}${a1.id}/delete/`, {}, token);
    expect(await ids(BASE, token)).toEqual([a2.id]);
  });

  it("is 404 for an endpoint that does not exist, was removed, or is another supplier's", async () => {
    const mine = await create();
    const theirs = await create({ import_supplier_code: OTHER_SUPPLIER }, otherToken);
    for (const path of [`${BASE}we_nothing/`, `${BASE}${theirs.id}/`, `${BASE}${theirs.id}/deliveries/`]) {
      await expectErrorBody(await get(path), 404, 'webhook_endpoint_not_found');
    }
    for (const [path, body] of [[`${theirs.id}/`, { status: 'disabled' }], [`${theirs.id}/delete/`, {}], [`${theirs.id}/rotate-secret/`, {}], [`${theirs.id}/replay/`, { from_position: 1 }]] as const) {
      await expectErrorBody(await api.post(`${BASE}${path}`, body, token), 404, 'webhook_endpoint_not_found');
    }
    expect((await get(`${BASE}${theirs.id}/`, otherToken)).status).toBe(200);
    await api.post(`${BASE}${mine.id}/delete/`, {}, token);
    await expectErrorBody(await get(`${BASE}${mine.id}/`), 404, 'webhook_endpoint_not_found');
    await expectErrorBody(await api.post(`${BASE}${mine.id}/delete/`, {}, token), 404, 'webhook_endpoint_not_found');
  });
});

describe('POST webhook-endpoints/<id>/ (change)', () => {
  it('changes the settings given and answers them; disabling says why and since when, enabling clears it', async () => {
    const { id } = await create({ event_types: ['data_import.*'], description: 'CRM' });
    api.clock.advanceSeconds(60);
    const disabled = await api.post(`${BASE}${id}/`, { status: 'disabled' }, token);
    expect(disabled.status).toBe(200);
    expect(await disabled.json()).toEqual({
      id,
      import_supplier_code: SUPPLIER,
      url: PUBLIC_URL,
      event_types: ['data_import.*'],
      description: 'CRM',
      status: 'disabled',
      disabled_reason: 'operator',
      disabled_detail: null,
      disabled_at: '2026-11-21T10:01:00.000Z',
    });
    // Disabling again records nothing and keeps the first time.
    const count = await eventCount();
    api.clock.advanceSeconds(60);
    expect(await (await api.post(`${BASE}${id}/`, { status: 'disabled' }, token)).json()).toMatchObject({ disabled_at: '2026-11-21T10:01:00.000Z' });
    expect(await eventCount()).toBe(count);

    const changed = await api.post(`${BASE}${id}/`, { status: 'enabled', event_types: [], description: null, url: 'https://93.184.215.15/v2' }, token);
    expect(await changed.json()).toMatchObject({ status: 'enabled', disabled_reason: null, disabled_at: null, event_types: [], description: null, url: 'https://93.184.215.15/v2' });
    expect(await (await get(`${BASE}${id}/`)).json()).toMatchObject({ status: 'enabled', url: 'https://93.184.215.15/v2', updated_at: '2026-11-21T10:02:00.000Z', created_at: '2026-11-21T10:00:00.000Z' });
  });

  it('refuses an empty change, unknown fields, a bad status or filter, and a URL the rules refuse', async () => {
    const { id } = await create();
    const before = await eventCount();
    for (const [body, attr, code] of [
      [{}, 'non_field_errors', 'required'],
      [{ status: 'paused' }, 'status', 'invalid_choice'],
      [{ enabled: false }, 'non_field_errors', 'unknown_field'],
      [{ event_types: ['*'] }, 'event_types.0', 'invalid_event_type'],
    ] as const) {
      const error = await expectErrorBody(await api.post(`${BASE}${id}/`, body, token), 400, 'validation_error');
      expect(error.errors, JSON.stringify(body)).toContainEqual(expect.objectContaining({ attr, code }));
    }
    const refused = await expectErrorBody(await api.post(`${BASE}${id}/`, { url: 'https://192.168.1.20/in' }, token), 400, 'webhook_url_refused');
    expect(refused.errors).toEqual([expect.objectContaining({ attr: 'url', code: 'private_address' })]);
    expect(await eventCount()).toBe(before);
  });

  it("the delivery engine disables an endpoint that answered 410 or kept failing: recorded once, shown, cleared by enabling", async () => {
    const { id } = await create();
    expect(await disableWebhookEndpoint(api.ledger, id, 'gone', 'the receiver answered 410 Gone', engine)).toBe(true);
    expect(await disableWebhookEndpoint(api.ledger, id, 'failing', 'failing for 3 days', engine)).toBe(false);
    expect(await (await get(`${BASE}${id}/`)).json()).toMatchObject({ status: 'disabled', disabled_reason: 'gone', disabled_detail: 'the receiver answered 410 Gone' });
    const stream = await api.ledger.store.readStream(`webhook-endpoint:${id}`);
    expect(stream.map((s) => [s.event.type, s.metadata.actor])).toEqual([
      ['WebhookEndpointCreated', expect.stringMatching(/^key_/)],
      ['WebhookEndpointChanged', 'system:webhooks'],
    ]);
    expect(await enableWebhookEndpoint(api.ledger, id, operator)).toBe(true);
    expect(await (await get(`${BASE}${id}/`)).json()).toMatchObject({ status: 'enabled', disabled_reason: null, disabled_detail: null });
    // An endpoint removed meanwhile: the engine's call records nothing.
    await api.post(`${BASE}${id}/delete/`, {}, token);
    expect(await disableWebhookEndpoint(api.ledger, id, 'gone', '410', engine)).toBe(false);
  });
});

describe('POST webhook-endpoints/<id>/rotate-secret/ and delete/', () => {
  it('rotates: the new secret is shown once, both sign for 24 hours, then the new one alone', async () => {
    const { id, secret } = await create();
    api.clock.advanceSeconds(3600);
    const res = await api.post(`${BASE}${id}/rotate-secret/`, {}, token);
    expect(res.status).toBe(201);
    const rotated = (await res.json()) as { id: string; secret: string; previous_secret_expires_at: string };
    expect(rotated).toEqual({ id, secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: '2026-11-22T11:00:00.000Z' });
    expect(rotated.secret).not.toBe(secret);
    expect(await api.ledger.webhookSecrets.signingSecrets(id, api.clock.read())).toEqual([rotated.secret, secret]);
    api.clock.advanceSeconds(24 * 3600);
    expect(await api.ledger.webhookSecrets.signingSecrets(id, api.clock.read())).toEqual([rotated.secret]);
    expect(JSON.stringify(await api.execute('SELECT data FROM events'))).not.toContain('whsec_');
    await expectErrorBody(await api.post(`${BASE}${id}/rotate-secret/`, { overlap: 1 }, token), 400, 'validation_error');
  });

  it('deletes: the endpoint is gone and its secrets forgotten', async () => {
    const { id } = await create();
    const res = await api.post(`${BASE}${id}/delete/`, {}, token);
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { id, deleted: true } });
    expect(await api.ledger.webhookSecrets.signingSecrets(id, api.clock.read())).toEqual([]);
    expect(await api.ledger.read.findWebhookEndpoint(id)).toMatchObject({ id, removed: true });
    await expectErrorBody(await api.post(`${BASE}${id}/delete/`, { really: true }, token), 404, 'webhook_endpoint_not_found');
  });
});

describe('GET webhook-endpoints/<id>/deliveries/', () => {
  const attempt = (id: string, n: number, failed: boolean): AttemptRow => ({
    endpointId: id,
    messageId: `msg_${n}`,
    eventType: 'data_import.import_process.complete-v1',
    position: n,
    attempt: 1,
    statusCode: failed ? 503 : 204,
    durationMs: 12,
    error: failed ? 'the receiver answered 503' : null,
    outcome: failed ? 'failed' : 'delivered',
    attemptedAt: `2026-11-21T10:00:0${n}.000Z`,
  });

  it('pages the attempts newest first, all or the failed ones, following the Link header', async () => {
    const { id } = await create();
    const other = await create();
    await api.ledger.webhookAttempts.record([1, 2, 3, 4, 5].map((n) => attempt(id, n, n % 2 === 0)));
    await api.ledger.webhookAttempts.record([attempt(other.id, 9, true)]);
    const all = await get(`${BASE}${id}/deliveries/`);
    expect(all.headers.get('link')).toBeNull();
    const body = (await all.json()) as { position: number; outcome: string; status_code: number; error: string | null; message_id: string }[];
    expect(body.map((d) => d.position)).toEqual([5, 4, 3, 2, 1]);
    expect(body[1]).toEqual({
      id: expect.any(Number),
      message_id: 'msg_4',
      event_type: 'data_import.import_process.complete-v1',
      position: 4,
      attempt: 1,
      status_code: 503,
      duration_ms: 12,
      error: 'the receiver answered 503',
      outcome: 'failed',
      attempted_at: '2026-11-21T10:00:04.000Z',
    });
    const firstPage = await get(`${BASE}${id}/deliveries/?limit=2`);
    const link = firstPage.headers.get('link');
    expect(link).toMatch(new RegExp(`^<${BASE}${id}/deliveries/\\?limit=2&before=\\d+>; rel="next"$`));
    expect(((await firstPage.json()) as { position: number }[]).map((d) => d.position)).toEqual([5, 4]);
    const next = await get(link!.slice(1, link!.indexOf('>')));
    expect(((await next.json()) as { position: number }[]).map((d) => d.position)).toEqual([3, 2]);
    const failed = await get(`${BASE}${id}/deliveries/?status=failed&limit=1`);
    expect(((await failed.json()) as { position: number }[]).map((d) => d.position)).toEqual([4]);
    const failedLink = failed.headers.get('link')!;
    expect(failedLink).toContain('status=failed&limit=1&before=');
    expect(((await (await get(failedLink.slice(1, failedLink.indexOf('>')))).json()) as { position: number }[]).map((d) => d.position)).toEqual([2]);
    for (const query of ['?limit=0', '?limit=1001', '?limit=x', '?before=-1', '?before=abc', '?status=delivered', '?limit=1&limit=2']) {
      await expectErrorBody(await get(`${BASE}${id}/deliveries/${query}`), 400, 'invalid_query_parameter');
    }
  });
});

describe('POST webhook-endpoints/<id>/replay/', () => {
  it('replays from a position, or from the first event recorded at or after a time (202 with the position)', async () => {
    const { id } = await create();
    const early = await api.ledger.read.feedHead();
    api.clock.advanceSeconds(3600);
    // Events recorded an hour later: the first of them is where `since` half an hour later starts.
    await create({ description: 'later' });
    const head = await api.ledger.read.feedHead();
    const byPosition = await api.post(`${BASE}${id}/replay/`, { from_position: 1 }, token);
    expect({ status: byPosition.status, body: await byPosition.json() }).toEqual({ status: 202, body: { id, from_position: 1 } });
    const since = await api.post(`${BASE}${id}/replay/`, { since: '2026-11-21T11:30:00+01:00' }, token);
    expect(await since.json()).toEqual({ id, from_position: early + 1 });
    expect(await (await api.post(`${BASE}${id}/replay/`, { since: '2026-11-21T09:00:00Z' }, token)).json()).toEqual({ id, from_position: 1 });
    // After the last event: nothing to deliver again yet, and no position past the end.
    const afterEnd = (await (await api.post(`${BASE}${id}/replay/`, { since: '2026-11-22T00:00:00Z' }, token)).json()) as { from_position: number };
    expect(afterEnd.from_position).toBeGreaterThan(head);
    expect(await api.ledger.read.findWebhookEndpoint(id)).toMatchObject({ replaySeq: 4, replayFromPosition: afterEnd.from_position });
    const events = await api.ledger.store.readStream(`webhook-endpoint:${id}`);
    expect(events.filter((s) => s.event.type === 'WebhookEndpointReplayRequested').map((s) => s.event.data)).toContainEqual(
      expect.objectContaining({ fromPosition: early + 1, since: '2026-11-21T10:30:00.000Z' }),
    );
  });

  it('refuses anything but exactly one of since and from_position, and a position past the end of the log', async () => {
    const { id } = await create();
    const before = await eventCount();
    for (const body of [{}, { since: '2026-11-21T10:00:00Z', from_position: 1 }, { from_position: 0 }, { from_position: 1.5 }, { since: 'yesterday' }, { since: '2026-11-21T10:00:00' }, { from: 1 }]) {
      await expectErrorBody(await api.post(`${BASE}${id}/replay/`, body, token), 400, 'validation_error');
    }
    const tooFar = await expectErrorBody(await api.post(`${BASE}${id}/replay/`, { from_position: before + 2 }, token), 400, 'validation_error');
    expect(tooFar.errors).toEqual([expect.objectContaining({ attr: 'from_position' })]);
    expect(await eventCount()).toBe(before);
  });
});
