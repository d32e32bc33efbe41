import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { authenticatedEndpoints, endpoints, type Endpoint } from '../support/endpoints.js';
import { expectErrorBody } from '../support/http.js';
import { OTHER_SUPPLIER, SUPPLIER } from '../support/ledger.js';

/**
 * The tenant matrix: a token scoped to supplier A (SUPPLIER) used on supplier
 * B's (OTHER_SUPPLIER) accounts, businesses, history and populate batches gets
 * 403 or 404, learns nothing of B's data, and changes nothing.
 */

let world: EndpointWorld;
beforeAll(async () => {
  world = await createEndpointWorld();
});
afterAll(() => world.close());

const byName = (name: string): Endpoint => {
  const found = endpoints.find((e) => e.name === name);
  if (!found) throw new Error(`no endpoint ${name}`);
  return found;
};

/** What a foreign request must not echo: B's platform account numbers, batch ids and webhook endpoint ids. */
async function secretsOf(supplier: string): Promise<string[]> {
  const rows = await world.api.ledger.read.accountListChunk(supplier, null, { after: null, through: null }, 10_000);
  const p = world.params(endpoints[0]!, supplier);
  return [...rows.flatMap((r) => (r.platformAccountNumber ? [r.platformAccountNumber] : [])), p.batchId, p.webhookId];
}

const scoped = authenticatedEndpoints.filter((e) => e.supplier.in === 'body' || e.supplier.in === 'path' || e.supplier.in === 'owned-id');

describe.each(scoped.map((e) => [e.name, e] as [string, Endpoint]))('%s', (_name, endpoint) => {
  it("with A's token on B's resources: 403/404, nothing of B's in the answer, nothing written", async () => {
    const before = await world.eventCount();
    const b = world.params(endpoint, OTHER_SUPPLIER);
    const bodies = endpoint.method === 'POST' ? endpoint.payloads(b) : [undefined];
    const secrets = await secretsOf(OTHER_SUPPLIER);
    for (const body of bodies) {
      const res = await world.request(endpoint, { as: SUPPLIER, params: b, body });
      const text = await res.clone().text();
      if (endpoint.supplier.in === 'owned-id') await expectErrorBody(res, 404, endpoint.supplier.notFound);
      else await expectErrorBody(res, 403, 'permission_denied');
      // Only what the caller sent may come back (a 404 names the batch or endpoint id asked for).
      const sent = endpoint.path(b) + JSON.stringify(body ?? '');
      for (const secret of secrets.filter((s) => !sent.includes(s))) expect(text).not.toContain(secret);
    }
    expect(await world.eventCount()).toBe(before);
  });

  if (endpoint.supplier.in === 'body') {
    const field = endpoint.supplier.field;
    it(`B's ${field} with a broken body is answered exactly as for a supplier that does not exist (no probing), never 2xx`, async () => {
      const before = await world.eventCount();
      const answer = async (supplier: string, extra: Record<string, unknown>) => {
        const res = await world.request(endpoint, { as: SUPPLIER, body: { [field]: supplier, ...extra } });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      for (const extra of [{}, { junk: [1, 2, 3] }]) {
        const forB = await answer(OTHER_SUPPLIER, extra);
        // Most endpoints check the scope first (403); process/ validates its small body first (400): both are fine.
        expect([400, 403]).toContain(forB.status);
        expect(forB).toEqual(await answer('NO_SUCH_SUPPLIER', extra));
      }
      // A full valid payload for a supplier that does not exist is refused like B's: codes cannot be probed.
      const payload = endpoint.payloads(world.params(endpoint, 'NO_SUCH_SUPPLIER'))[0];
      await expectErrorBody(await world.request(endpoint, { as: SUPPLIER, body: payload }), 403, 'permission_denied');
      expect(await world.eventCount()).toBe(before);
    });
  }

  it("the same request with B's own token succeeds (the refusal is about scope, not the request)", async () => {
    const b = world.params(endpoint, OTHER_SUPPLIER);
    const res = await world.request(endpoint, { as: OTHER_SUPPLIER, params: b });
    expect(endpoint.success, await res.clone().text()).toContain(res.status);
  });
});

describe('endpoints that name no supplier', () => {
  it("populate batches are scoped to their creator's suppliers: a batch created with A's key is 404 to B", async () => {
    const post = byName('POST supply-point/populate/');
    const created = await world.request(post, { as: SUPPLIER });
    expect(created.status).toBe(201);
    const { batch_id: batchId } = (await created.json()) as { batch_id: string };
    const status = byName('GET supply-point/populate/<batch_id>/');
    const params = { ...world.params(status, OTHER_SUPPLIER), batchId };
    await expectErrorBody(await world.request(status, { as: OTHER_SUPPLIER, params }), 404, 'populate_batch_not_found');
    expect((await world.request(status, { as: SUPPLIER, params: { ...params, supplier: SUPPLIER } })).status).toBe(200);
  });

  it("the events feed shows A only A's events: nothing of B's accounts, businesses or batches", async () => {
    const feed = byName('GET events/');
    const res = await world.request(feed, { as: SUPPLIER, query: '?limit=1000' });
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text) as { events: { type: string; data: { import_supplier: string | null; batch_id?: string } }[] };
    expect(body.events.length).toBeGreaterThan(0);
    // Shared-catalogue events (products) and a batch's supply points carry no supplier; everything else is A's.
    expect(body.events.filter((e) => e.data.import_supplier !== SUPPLIER && e.data.import_supplier !== null)).toEqual([]);
    const unnamed = body.events.filter((e) => e.data.import_supplier === null);
    expect(unnamed.filter((e) => !e.type.startsWith('data_import.product.') && e.data.batch_id !== world.params(feed, SUPPLIER).batchId)).toEqual([]);
    for (const secret of await secretsOf(OTHER_SUPPLIER)) expect(text).not.toContain(secret);
  });

  it("webhook endpoints are listed for the key's suppliers only; naming another supplier is 403", async () => {
    const list = byName('GET webhook-endpoints/');
    const res = await world.request(list, { as: SUPPLIER });
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text) as { import_supplier_code: string }[];
    expect(body.length).toBeGreaterThan(0);
    expect(body.filter((e) => e.import_supplier_code !== SUPPLIER)).toEqual([]);
    for (const secret of await secretsOf(OTHER_SUPPLIER)) expect(text).not.toContain(secret);
    for (const supplier of [OTHER_SUPPLIER, 'NO_SUCH_SUPPLIER']) {
      await expectErrorBody(await world.request(list, { as: SUPPLIER, query: `?import_supplier_code=${supplier}` }), 403, 'permission_denied');
    }
  });

  it('products are the shared catalogue: any valid token may validate and create them (the payload names no supplier)', async () => {
    for (const name of ['POST validate-products/', 'POST products/']) {
      const endpoint = byName(name);
      expect(endpoint.supplier).toEqual({ in: 'none', why: 'shared-catalogue' });
      for (const as of [SUPPLIER, OTHER_SUPPLIER]) expect(endpoint.success).toContain((await world.request(endpoint, { as })).status);
    }
  });
});
