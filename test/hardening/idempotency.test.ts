import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PaymentVendors } from '../../src/adapters/payment-vendors.js';
import { createApp } from '../../src/http/app.js';
import { recoveryFor } from '../../src/answers/recoveries.js';
import { openLedger } from '../../src/ledger.js';
import { createEndpointWorld, knowingVendors, type EndpointWorld } from '../support/endpoint-world.js';
import { dataImportPosts, endpoints, type Endpoint } from '../support/endpoints.js';
import { expectErrorBody } from '../support/http.js';
import { checkedApp } from '../support/openapi-check.js';
import { OTHER_SUPPLIER, TOKEN_SECRET, plainAppDeps } from '../support/ledger.js';

/** Idempotency-Key on every POST under /v1/data-import/ (IETF draft "The Idempotency-Key HTTP Header Field"). */

const key = (n: string) => ({ 'idempotency-key': n });

async function answer(res: Response) {
  return { status: res.status, body: await res.text() };
}

/** The Idempotency-Key records as the database holds them (read on a connection of its own). */
async function rows(world: EndpointWorld) {
  return (await world.api.execute('SELECT * FROM idempotency_keys ORDER BY created_at')) as {
    idempotency_key: string;
    event_positions: string;
    status: number | null;
    response_body: string | null;
  }[];
}

describe.each(dataImportPosts.map((e) => [e.name, e] as [string, Endpoint]))('%s', (_name, endpoint) => {
  let world: EndpointWorld;
  beforeEach(async () => {
    world = await createEndpointWorld();
  });
  afterEach(() => world.close());

  it('a retry with the same key and body gets the stored response (Idempotent-Replayed: true) and writes nothing', async () => {
    const first = await world.request(endpoint, { headers: key('k-1') });
    expect(endpoint.success).toContain(first.status);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const original = await answer(first);
    const count = await world.eventCount();
    for (let i = 0; i < 2; i++) {
      const retry = await world.request(endpoint, { headers: key('k-1') });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.headers.get('content-type')).toMatch(/application\/json/);
      expect(await answer(retry)).toEqual(original);
    }
    expect(await world.eventCount()).toBe(count);
  });

  it('an error response is kept too; the same key with another body is 422 idempotency_key_reused', async () => {
    const refused = await answer(await world.request(endpoint, { body: { nothing: 'valid' }, headers: key('k-2') }));
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const retry = await world.request(endpoint, { body: { nothing: 'valid' }, headers: key('k-2') });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await answer(retry)).toEqual(refused);
    const count = await world.eventCount();
    await expectErrorBody(await world.request(endpoint, { headers: key('k-2') }), 422, 'idempotency_key_reused');
    await expectErrorBody(await world.request(endpoint, { headers: key('k-2'), query: '?x=1' }), 422, 'idempotency_key_reused');
    expect(await world.eventCount()).toBe(count);
  });

  it('keys belong to the API key: the same key value from another key is another request', async () => {
    const mine = await world.request(endpoint, { body: { a: 1 }, headers: key('shared') });
    const theirs = await world.request(endpoint, { as: OTHER_SUPPLIER, params: world.params(endpoint, OTHER_SUPPLIER), headers: key('shared') });
    expect(mine.status).not.toBe(422);
    expect(theirs.status).not.toBe(422);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  if (endpoint.writes && endpoint.answerNotInLog !== undefined) {
    it(`the key is recorded with the events; as ${endpoint.answerNotInLog}, a retry after a crash before the answer was stored is 409 idempotency_response_lost and writes nothing`, async () => {
      const body = endpoint.fresh?.(world.params(endpoint), 1) ?? endpoint.payloads(world.params(endpoint))[0];
      const first = await world.request(endpoint, { body, headers: key('k-crash') });
      expect(endpoint.success).toContain(first.status);
      const [row] = (await rows(world)).filter((r) => r.idempotency_key === 'k-crash');
      expect((JSON.parse(row!.event_positions) as number[]).length).toBeGreaterThan(0);
      await world.api.execute("UPDATE idempotency_keys SET status = NULL, response_body = NULL WHERE idempotency_key = 'k-crash'");
      const count = await world.eventCount();
      await expectErrorBody(await world.request(endpoint, { body, headers: key('k-crash') }), 409, 'idempotency_response_lost');
      expect(await world.eventCount()).toBe(count);
    });
  }

  if (endpoint.writes && endpoint.answerNotInLog === undefined) {
    it('the key is recorded in the transaction of the events; if the response was never stored (a crash), the retry gets it rebuilt from the events', async () => {
      const body = endpoint.fresh?.(world.params(endpoint), 1) ?? endpoint.payloads(world.params(endpoint))[0];
      const first = await answer(await world.request(endpoint, { body, headers: key('k-crash') }));
      const [row] = (await rows(world)).filter((r) => r.idempotency_key === 'k-crash');
      const positions = JSON.parse(row!.event_positions) as number[];
      expect(positions.length).toBeGreaterThan(0);
      const [last] = (await world.api.execute('SELECT MAX(global_position) AS p FROM events')) as { p: number }[];
      expect(Math.max(...positions)).toBe(last!.p);
      // The process died after COMMIT and before the response was stored on the row.
      await world.api.execute("UPDATE idempotency_keys SET status = NULL, response_body = NULL WHERE idempotency_key = 'k-crash'");
      const count = await world.eventCount();
      const retry = await world.request(endpoint, { body, headers: key('k-crash') });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const recovered = await answer(retry);
      expect({ status: recovered.status, body: JSON.parse(recovered.body) }).toEqual({ status: first.status, body: JSON.parse(first.body) });
      expect(await world.eventCount()).toBe(count);
      // And it is stored now.
      expect(await answer(await world.request(endpoint, { body, headers: key('k-crash') }))).toEqual(recovered);
    });
  }
});

describe('Idempotency-Key rules', () => {
  let world: EndpointWorld;
  let release: () => void = () => undefined;
  let vendorCalls = 0;
  let vendorFails = false;
  const slowVendor: PaymentVendors = {
    names: ['STRIPE'],
    fetchInstruction: async (vendor, reference) => {
      vendorCalls++;
      await new Promise<void>((resolve) => {
        release = resolve;
        if (!vendorFails) setTimeout(resolve, 0);
      });
      if (vendorFails) return { kind: 'unavailable', reason: 'down for maintenance' };
      return knowingVendors.fetchInstruction(vendor, reference);
    },
  };
  const payment = endpoints.find((e) => e.name === 'POST payment-instruction/create/')!;
  const stage = endpoints.find((e) => e.name === 'POST account-import-process/create-or-update/')!;
  const process = endpoints.find((e) => e.name === 'POST account-import-process/process/')!;
  const transactions = endpoints.find((e) => e.name === 'POST transactions/create/')!;

  beforeAll(async () => {
    world = await createEndpointWorld({ paymentVendors: slowVendor });
  });
  afterAll(() => world.close());

  it('every write endpoint of the table has a way to rebuild its response from its events, but those whose answer shows a secret', () => {
    for (const endpoint of dataImportPosts.filter((e) => e.writes)) {
      const path = endpoint.path(world.params(endpoint));
      expect(recoveryFor(path) === null, `${endpoint.name}: ${endpoint.answerNotInLog ?? 'rebuilt from its events'}`).toBe(endpoint.answerNotInLog !== undefined);
    }
  });

  it('a retry while the first request is still being handled is 409 idempotency_key_in_progress', async () => {
    vendorFails = true; // the vendor call hangs until released
    const first = world.request(payment, { headers: key('slow') });
    while (vendorCalls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await expectErrorBody(await world.request(payment, { headers: key('slow') }), 409, 'idempotency_key_in_progress');
    // A different body with the same key while in flight: in progress too (nothing is known of the first yet).
    expect((await world.request(payment, { body: { x: 1 }, headers: key('slow') })).status).toBe(409);
    release();
    // The vendor was unavailable: a 500 the caller retries as is (spec 4.12), so it is not kept.
    expect((await first).status).toBe(500);
    vendorFails = false;
    const retry = await world.request(payment, { headers: key('slow') });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect((await world.request(payment, { headers: key('slow') })).headers.get('idempotent-replayed')).toBe('true');
  });

  it('the key is 1 to 255 printable ASCII characters, bare or as a quoted sf-string', async () => {
    for (const bad of ['', '   ', 'x'.repeat(256), 'clé', '""', 'tab\there']) {
      await expectErrorBody(await world.request(stage, { headers: key(bad) }), 400, 'invalid_idempotency_key');
    }
    const long = 'x'.repeat(255);
    expect((await world.request(stage, { headers: key(long) })).status).toBe(200);
    expect((await world.request(stage, { headers: key(long) })).headers.get('idempotent-replayed')).toBe('true');
    expect((await world.request(stage, { headers: key('"quoted-1"') })).headers.get('idempotent-replayed')).toBeNull();
    expect((await world.request(stage, { headers: key('quoted-1') })).headers.get('idempotent-replayed')).toBe('true');
  });

  it('a refused command leaves no key in the log transaction; a GET ignores the header', async () => {
    const before = (await rows(world)).length;
    const refused = { ...(process.payloads(world.params(process))[0] as object), dry_run: true, operations_team_name: 'Nobody' };
    await expectErrorBody(await world.request(process, { body: refused, headers: key('refused') }), 400, 'operations_team_name_does_not_exist');
    const [row] = (await rows(world)).filter((r) => r.idempotency_key === 'refused');
    expect(row).toMatchObject({ event_positions: '[]', status: 400 });
    const get = endpoints.find((e) => e.method === 'GET')!;
    expect((await world.request(get, { headers: key('on-a-get') })).status).toBe(200);
    expect((await rows(world)).length).toBe(before + 1);
  });

  it('a successful dry run records the key with its audit event only; after a crash the retry gets the 400 rebuilt', async () => {
    const dry = { ...(process.payloads(world.params(process))[0] as object), dry_run: true };
    const count = await world.eventCount();
    const first = await answer(await world.request(process, { body: dry, headers: key('dry') }));
    expect({ status: first.status, code: (JSON.parse(first.body) as { code: string }).code }).toEqual({ status: 400, code: 'dry_run_rollback' });
    expect(await world.eventCount()).toBe(count + 1);
    const [last] = (await world.api.execute('SELECT global_position AS p, stream_id, type FROM events ORDER BY global_position DESC LIMIT 1')) as {
      p: number;
      stream_id: string;
      type: string;
    }[];
    expect(last).toMatchObject({ stream_id: expect.stringMatching(/^dry-run:/), type: 'AccountProcessDryRunSucceeded' });
    const [row] = (await rows(world)).filter((r) => r.idempotency_key === 'dry');
    expect(row).toMatchObject({ event_positions: `[${last!.p}]`, status: 400 });
    // The process died after COMMIT and before the response was stored on the row.
    await world.api.execute("UPDATE idempotency_keys SET status = NULL, response_body = NULL WHERE idempotency_key = 'dry'");
    const retry = await world.request(process, { body: dry, headers: key('dry') });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const recovered = await answer(retry);
    expect({ status: recovered.status, body: JSON.parse(recovered.body) as unknown }).toEqual({ status: 400, body: JSON.parse(first.body) });
    expect(await world.eventCount()).toBe(count + 1);
  });

  it('a transactions dry run records the key with its audit event only; after a crash the retry gets the same 201 rebuilt', async () => {
    const request = transactions.payloads(world.params(transactions))[0] as { transactions: { transaction_id: string }[] };
    const dry = { ...request, transactions: request.transactions.map((tx) => ({ ...tx, transaction_id: `DRY-${tx.transaction_id}` })), dry_run: true };
    const count = await world.eventCount();
    const first = await answer(await world.request(transactions, { body: dry, headers: key('dry-tx') }));
    expect(first.status, first.body).toBe(201);
    expect(await world.eventCount()).toBe(count + 1);
    // The process died after COMMIT and before the response was stored on the row.
    await world.api.execute("UPDATE idempotency_keys SET status = NULL, response_body = NULL WHERE idempotency_key = 'dry-tx'");
    const retry = await world.request(transactions, { body: dry, headers: key('dry-tx') });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const recovered = await answer(retry);
    expect({ status: recovered.status, body: JSON.parse(recovered.body) as unknown }).toEqual({ status: 201, body: JSON.parse(first.body) });
    expect(await world.eventCount()).toBe(count + 1);
  });

  it('kept at least 24 hours: replayed just before, forgotten after', async () => {
    await world.request(stage, { headers: key('day') });
    world.api.clock.advanceSeconds(24 * 3600 - 1);
    const token = await world.api.token();
    const auth = { authorization: `Token ${token}` };
    expect((await world.request(stage, { headers: key('day'), authorization: auth.authorization })).headers.get('idempotent-replayed')).toBe('true');
    world.api.clock.advanceSeconds(2);
    const fresh = await world.request(stage, { body: { other: 'body' }, headers: key('day'), authorization: auth.authorization });
    expect(fresh.status).toBe(400);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
  });

  it('the stored response survives a restart (it is in the database, not in memory)', async () => {
    const token = await world.api.token();
    const first = await answer(await world.request(stage, { headers: key('durable'), authorization: `Token ${token}` }));
    // A new process on the same database: the same SQLite file, or the same PostgreSQL database.
    const reopened = await openLedger(world.api.location, { clock: world.api.clock.read });
    try {
      const app = checkedApp(createApp({ ...reopened, ...plainAppDeps, logger: pino({ level: 'silent' }), tokenSecret: TOKEN_SECRET, maxBodyBytes: 1 << 20, databaseReachable: async () => true }));
      const res = await app.request(stage.path(world.params(stage)), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Token ${token}`, ...key('durable') },
        body: JSON.stringify(stage.payloads(world.params(stage))[0]),
      });
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(await answer(res)).toEqual(first);
    } finally {
      await reopened.close();
    }
  });
});

describe('Idempotency-Key across service instances on one database', () => {
  let world: EndpointWorld;
  let calls = 0;
  let open: () => void = () => undefined;
  /** A vendor that answers only once the test opens the gate. */
  const gatedVendor: PaymentVendors = {
    names: ['STRIPE'],
    fetchInstruction: async (vendor, reference) => {
      calls++;
      await new Promise<void>((resolve) => (open = resolve));
      return knowingVendors.fetchInstruction(vendor, reference);
    },
  };
  const payment = endpoints.find((e) => e.name === 'POST payment-instruction/create/')!;

  beforeAll(async () => {
    world = await createEndpointWorld({ paymentVendors: gatedVendor });
  });
  afterAll(() => world.close());

  it('the same key sent to two instances at once runs once: the other gets 409, then the stored answer', async () => {
    // A second instance: its own ledger (its own connections) on the same database (SQLite file or PostgreSQL database).
    const second = await openLedger(world.api.location, { clock: world.api.clock.read });
    try {
      const app = checkedApp(
        createApp({
          ...second,
          ...plainAppDeps,
          logger: pino({ level: 'silent' }),
          tokenSecret: TOKEN_SECRET,
          maxBodyBytes: 1 << 20,
          databaseReachable: async () => true,
          paymentVendors: gatedVendor,
        }),
      );
      const token = await world.token();
      const body = payment.payloads(world.params(payment))[0];
      const viaSecond = () =>
        app.request(payment.path(world.params(payment)), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Token ${token}`, ...key('two-instances') },
          body: JSON.stringify(body),
        });
      const first = world.request(payment, { body, headers: key('two-instances'), authorization: `Token ${token}` });
      while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await expectErrorBody(await viaSecond(), 409, 'idempotency_key_in_progress');
      expect(calls).toBe(1); // the second instance never reached the vendor
      const count = await world.eventCount();
      open();
      const answered = await answer(await first);
      expect(answered.status).toBe(201);
      expect(await world.eventCount()).toBe(count + 1);
      const replayed = await viaSecond();
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(await answer(replayed)).toEqual(answered);
      expect(await world.eventCount()).toBe(count + 1);
    } finally {
      await second.close();
    }
  });
});
