import { randomBytes } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import { sourceEventTypes, toExternalEvent, type RoutedEvent } from '../../src/external-events/catalogue.js';
import type { Ledger } from '../../src/ledger.js';
import { Relays, type EndpointView, type WebhookEndpointsPort } from '../../src/relay/relays.js';
import type { AttemptRow } from '../../src/store/webhook-storage.js';
import { examplePayload } from '../support/account-records.js';
import { createTestApi, operator, SUPPLIER, TEAM, type TestApi } from '../support/ledger.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const ext = (i: number) => `LEG-${String(i).padStart(7, '0')}`;

/** The endpoints resource as the relays see it, held in memory: what the test changes, the relays read. */
class Endpoints implements WebhookEndpointsPort {
  readonly attempts: AttemptRow[] = [];
  readonly disabled: { id: string; reason: string; detail: string }[] = [];
  views: EndpointView[] = [];
  signing: string[];
  constructor(first: string) {
    this.signing = [first];
  }
  async list() {
    return this.views;
  }
  async signingSecrets() {
    return this.signing;
  }
  async recordAttempts(rows: readonly AttemptRow[]) {
    this.attempts.push(...rows);
  }
  async disable(id: string, reason: string, detail: string) {
    this.disabled.push({ id, reason, detail });
    this.views = this.views.map((v) => (v.id === id ? { ...v, status: 'disabled' as const } : v));
  }
  async batchSuppliers() {
    return [];
  }
  readonly lookup = dnsLookup;
  refusal() {
    return null;
  }
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The supplier's catalogue events after `after`, in log order. */
async function catalogue(ledger: Ledger, after: number): Promise<RoutedEvent[]> {
  const out: RoutedEvent[] = [];
  for await (const batch of await ledger.log.open({ after, types: sourceEventTypes })) for (const stored of batch) {
    const routed = toExternalEvent(stored);
    if (routed && 'supplier' in routed.scope && routed.scope.supplier === SUPPLIER) out.push(routed);
    else if (routed && 'everyone' in routed.scope) out.push(routed);
  }
  return out;
}

/** Each account's events arrived in the log's order (at least once each: repeats carry the same id). */
function expectOrderPerAccount(want: readonly RoutedEvent[], receiver: WebhookReceiver): void {
  const byKey = new Map<string, string[]>();
  for (const r of want) byKey.set(r.orderingKey, [...(byKey.get(r.orderingKey) ?? []), r.event.id]);
  const keyOf = new Map(want.map((r) => [r.event.id, r.orderingKey]));
  const seen = new Map<string, string[]>();
  for (const got of receiver.received) {
    const key = keyOf.get(got.id);
    if (!key) continue;
    const list = seen.get(key) ?? [];
    if (list[list.length - 1] !== got.id) list.push(got.id);
    seen.set(key, list);
  }
  for (const [key, ids] of byKey) expect(seen.get(key), key).toEqual(ids);
}

describe('webhook delivery', () => {
  let api: TestApi;
  let receiver: WebhookReceiver;
  let endpoints: Endpoints;
  let relays: Relays;
  const signingSecret = secret();

  const start = (schedule: readonly number[] = [0, 50, 100, 200], disableAfterMs = 60_000) => {
    relays = new Relays({
      log: api.ledger.log,
      relays: api.ledger.relays,
      logger: pino({ level: 'silent' }),
      nats: null,
      webhooks: { endpoints, settings: { schedule, disableAfterMs, timeoutMs: 2_000, concurrency: 8 } },
      watchEveryMs: 50,
      laneOptions: { persistEveryMs: 20, leaseMs: 2_000 },
    });
    relays.start();
  };

  const stageAndProcess = async (from: number, to: number) => {
    for (let i = from; i <= to; i++) {
      const payload = examplePayload({ external_account_number: ext(i) });
      await stageAccount(api.ledger, payload, operator);
      await processAccount(api.ledger, { importSupplier: SUPPLIER, externalAccountNumber: ext(i), operationsTeamName: TEAM, dryRun: false }, operator);
    }
  };

  beforeEach(async () => {
    api = await createTestApi();
    endpoints = new Endpoints(signingSecret);
    receiver = await startWebhookReceiver([signingSecret]);
  });
  afterEach(async () => {
    await relays?.stop();
    await receiver.close();
    await api.close();
  });

  /** An endpoint created now (its relay starts after the log's current end). */
  const endpoint = async (overrides: Partial<EndpointView> = {}): Promise<EndpointView> => ({
    id: 'we_test',
    createdPosition: await api.ledger.log.lastPosition(),
    importSupplier: SUPPLIER,
    url: receiver.url,
    eventTypes: [],
    status: 'enabled',
    replaySeq: 0,
    replayFromPosition: null,
    ...overrides,
  });

  it('delivers every event from the endpoint on, signed, in order per account; a receiver failing for a while then answering gets everything', async () => {
    const before = await api.ledger.log.lastPosition();
    endpoints.views = [await endpoint()];
    start();
    await stageAndProcess(1, 10);
    // Down for a while: every delivery fails (some with a Retry-After), then the receiver is back.
    receiver.answer(() => ({ status: 503, headers: { 'retry-after': '0' } }));
    await stageAndProcess(11, 20);
    await until(() => endpoints.attempts.filter((a) => a.outcome === 'failed').length >= 10, 'failed attempts');
    receiver.answer(() => ({ status: 200 }));
    const want = await catalogue(api.ledger, before);
    await until(() => new Set(receiver.received.map((r) => r.id)).size >= want.length, `all ${want.length} events`);
    expect(receiver.unverified).toBe(0);
    expect(new Set(receiver.received.map((r) => r.id))).toEqual(new Set(want.map((r) => r.event.id)));
    expectOrderPerAccount(want, receiver);
    const first = receiver.received.find((r) => r.id === want[0]!.event.id)!;
    expect(first).toMatchObject({ type: want[0]!.event.type, data: want[0]!.event.data });
    // What nobody waits on any more is forgotten.
    await until(async () => (await api.ledger.relays.parked('we_test', 10)).length === 0, 'nothing parked');
    expect(endpoints.disabled).toEqual([]);
  });

  it("one account's failing event holds none of the others back; it and the rest of its account follow, in order, once it is accepted", async () => {
    endpoints.views = [await endpoint()];
    start([0, 30, 60]);
    await until(async () => (await api.ledger.relays.cursors()).length === 1, 'the lane to hold its relay');
    const before = await api.ledger.log.lastPosition();
    let stubborn = true;
    receiver.answer(({ data }) => ({ status: stubborn && data['external_account_number'] === ext(3) ? 422 : 200 }));
    await stageAndProcess(1, 12);
    const want = await catalogue(api.ledger, before);
    const others = want.filter((r) => r.event.data['external_account_number'] !== ext(3));
    await until(() => others.every((r) => receiver.received.some((got) => got.id === r.event.id)), 'the other accounts');
    expect(receiver.received.some((got) => got.data['external_account_number'] === ext(3))).toBe(false);
    // Parked in the store, so the endpoint's position moved past it.
    const three = want.filter((r) => r.orderingKey === `account:${SUPPLIER}/${ext(3)}`);
    await until(async () => (await api.ledger.relays.parked('we_test', 100)).length === three.length, "account 3's events parked");
    expect((await api.ledger.relays.parked('we_test', 100)).map((p) => p.position)).toEqual(three.map((r) => r.position));
    expect((await api.ledger.relays.cursors())[0]!.position).toBeGreaterThan(three[three.length - 1]!.position);
    stubborn = false;
    await until(() => new Set(receiver.received.map((r) => r.id)).size >= want.length, 'every event');
    expectOrderPerAccount(want, receiver);
  });

  it('a 410 disables the endpoint and delivers nothing more; a rotation signs with both secrets; a filter selects the types', async () => {
    const rotated = secret();
    endpoints.views = [await endpoint({ eventTypes: ['data_import.import_process.staged-v1'] })];
    endpoints.signing = [rotated, signingSecret];
    receiver.secrets([rotated]);
    start();
    await until(async () => (await api.ledger.relays.cursors()).length === 1, 'the lane to hold its relay');
    await stageAndProcess(1, 2);
    await until(() => receiver.received.length >= 2, 'two staged events');
    expect(receiver.received.map((r) => r.type)).toEqual(['data_import.import_process.staged-v1', 'data_import.import_process.staged-v1']);
    // The old secret's holder verifies too.
    receiver.secrets([signingSecret]);
    await stageAndProcess(3, 3);
    await until(() => receiver.received.length >= 3, 'a third');
    expect(receiver.unverified).toBe(0);

    receiver.answer(() => ({ status: 410 }));
    await stageAndProcess(4, 4);
    await until(() => endpoints.disabled.length === 1, 'the endpoint disabled');
    expect(endpoints.disabled[0]).toMatchObject({ id: 'we_test', reason: 'gone' });
    const requests = receiver.requests;
    receiver.answer(() => ({ status: 200 }));
    await stageAndProcess(5, 6);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toBe(requests);
  });
});
