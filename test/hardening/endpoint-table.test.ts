import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { endpoints } from '../support/endpoints.js';
import { OTHER_SUPPLIER, SUPPLIER } from '../support/ledger.js';

/** The table the hardening tests iterate is complete and right: every route is in it, every example succeeds. */

let world: EndpointWorld;
beforeAll(async () => {
  world = await createEndpointWorld();
});
afterAll(() => world.close());

/** `GET /v1/data-import/account-transfer-status/:supplier/:ext/` becomes `GET /v1/data-import/account-transfer-status/* /* /` (no spaces). */
const shape = (method: string, path: string) => `${method} ${path.replace(/:[^/]+|__\w+__/g, '*')}`;

describe('the endpoint table (test/support/endpoints.ts)', () => {
  it('names every route the app serves under /v1/ (a new route fails here until it is added to the table)', () => {
    const served = new Set(
      world.api.app.routes
        .filter((r) => r.path.startsWith('/v1/') && r.method !== 'ALL')
        .map((r) => shape(r.method, r.path)),
    );
    const p = world.params(endpoints[0]!);
    const tabled = new Set(
      endpoints.map((e) => {
        const path = e.path({ ...p, supplier: '__supplier__', ext: '__ext__', batchId: '__batchId__', webhookId: '__webhookId__' });
        return shape(e.method, path);
      }),
    );
    expect([...served].sort()).toEqual([...tabled].sort());
  });

  for (const endpoint of endpoints) {
    it(`${endpoint.name}: every example payload succeeds for both suppliers (${endpoint.success.join('/')})`, async () => {
      for (const supplier of [SUPPLIER, OTHER_SUPPLIER]) {
        const p = world.params(endpoint, supplier);
        const bodies = endpoint.method === 'POST' ? endpoint.payloads(p) : [undefined];
        for (const body of bodies) {
          const res = await world.request(endpoint, { as: supplier, body });
          expect(endpoint.success, `${supplier} ${await res.clone().text()}`).toContain(res.status);
        }
      }
    });
  }
});
