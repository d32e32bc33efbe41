import { HonoRequest } from 'hono/request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { endpoints } from '../support/endpoints.js';
import { loadExample, SUPPLIER, TEAM } from '../support/ledger.js';

/**
 * The document and the routes say the same, operation by operation: which query parameters it takes,
 * and which success statuses it answers. The routes say it by what they do: every operation is driven
 * (the endpoint table's example requests, each sent twice so that a repeat's answer shows too, and the
 * operations outside the table), while every query parameter a route looks up is recorded, whether it
 * asks for one by name, parses the whole query with a schema, or reads the URL's search parameters. A parameter or a success status that
 * one side has and the other lacks fails here, so the document cannot drift from the routes.
 */

interface Drive {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly bodies: readonly unknown[];
  readonly auth: boolean;
}

interface Seen {
  readonly query: Set<string>;
  readonly statuses: Set<number>;
}

interface DocumentedOperation {
  readonly operationId?: string;
  readonly parameters?: { name: string; in: string }[];
  readonly responses?: Record<string, unknown>;
}

/** `GET /v1/x/{supplier}/` and `GET /v1/x/:supplier/` (or `__supplier__`) are the same operation: `GET /v1/x/*\/`. */
const shape = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}|:[^/]+|__\w+__/g, '*')}`;

const V2 = '/v2/data-import';
const V2_ACCOUNT = 'LEG-V2-0001';
const v2Payload = () => ({ ...structuredClone(loadExample('account-domestic.json')), import_supplier: SUPPLIER, external_account_number: V2_ACCOUNT, operations_team_name: TEAM });

/** The operations the endpoint table (test/support/endpoints.ts) leaves out: the probes and the v2 accounts. */
const OUTSIDE_THE_TABLE: Record<string, Drive> = {
  [shape('GET', '/healthz')]: { method: 'GET', path: '/healthz', bodies: [undefined], auth: false },
  [shape('GET', '/readyz')]: { method: 'GET', path: '/readyz', bodies: [undefined], auth: false },
  [shape('POST', `${V2}/accounts/validate/`)]: { method: 'POST', path: `${V2}/accounts/validate/`, bodies: [{ payload: v2Payload() }], auth: true },
  [shape('POST', `${V2}/accounts/`)]: { method: 'POST', path: `${V2}/accounts/`, bodies: [{ payload: v2Payload(), task_params: { is_dry_run: false } }], auth: true },
  [shape('GET', `${V2}/accounts/{supplier}/{ext}/`)]: { method: 'GET', path: `${V2}/accounts/${SUPPLIER}/${V2_ACCOUNT}/`, bodies: [undefined], auth: true },
};

/**
 * A query parameter every drive carries and no route reads: it marks the query string of the request
 * itself, so that a route (or a library) reading it through URLSearchParams is seen too.
 */
const PROBE = 'drift_probe';

/** The query parameter names looked up while `recording` is set: by name, or as a key of the whole query. */
let recording: Set<string> | null = null;
const requestMethods = HonoRequest.prototype as unknown as Record<'query' | 'queries', (this: HonoRequest, key?: string) => unknown>;
const original = { query: requestMethods.query, queries: requestMethods.queries };
const searchParams = URLSearchParams.prototype as unknown as Record<'get' | 'getAll' | 'has', (this: URLSearchParams, name: string) => unknown>;
const originalSearch = { get: searchParams.get, getAll: searchParams.getAll, has: searchParams.has };

function recorded(all: object): object {
  return new Proxy(all, {
    get(target, key, receiver) {
      if (typeof key === 'string') recording?.add(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
    has(target, key) {
      if (typeof key === 'string') recording?.add(key);
      return Reflect.has(target, key);
    },
  });
}

describe('the OpenAPI document against the routes', () => {
  let world: EndpointWorld;
  let document: { paths: Record<string, Record<string, DocumentedOperation>>; components?: { schemas?: Record<string, unknown> } };
  const seen = new Map<string, Seen>();

  beforeAll(async () => {
    for (const name of ['query', 'queries'] as const) {
      requestMethods[name] = function (this: HonoRequest, key?: string) {
        if (key === undefined) return recorded(original[name].call(this) as object);
        recording?.add(key);
        return original[name].call(this, key);
      };
    }
    for (const name of ['get', 'getAll', 'has'] as const) {
      searchParams[name] = function (this: URLSearchParams, key: string) {
        // Only the request's own query counts (it carries the probe), not every URLSearchParams made meanwhile.
        if (recording && originalSearch.has.call(this, PROBE)) recording.add(key);
        return originalSearch[name].call(this, key);
      };
    }
    world = await createEndpointWorld();
    document = (await (await world.api.app.request('/openapi.json')).json()) as typeof document;
    const token = await world.token();
    const drives = new Map<string, Drive>(Object.entries(OUTSIDE_THE_TABLE));
    for (const endpoint of endpoints) {
      const p = world.params(endpoint);
      const template = endpoint.path({ ...p, supplier: '__supplier__', ext: '__ext__', batchId: '__batchId__', webhookId: '__webhookId__' });
      drives.set(shape(endpoint.method, template), { method: endpoint.method, path: endpoint.path(p), bodies: endpoint.method === 'POST' ? endpoint.payloads(p) : [undefined], auth: endpoint.auth });
    }
    for (const [operation, drive] of drives) {
      const record: Seen = { query: new Set(), statuses: new Set() };
      seen.set(operation, record);
      for (const round of [1, 2]) {
        for (const body of drive.bodies) {
          const headers: Record<string, string> = drive.auth ? { authorization: `Token ${token}` } : {};
          if (drive.method === 'POST') headers['content-type'] = 'application/json';
          recording = record.query;
          try {
            const res = await world.api.app.request(`${drive.path}?${PROBE}=1`, { method: drive.method, headers, ...(drive.method === 'POST' ? { body: JSON.stringify(body) } : {}) });
            record.statuses.add(res.status);
            await res.arrayBuffer();
          } finally {
            recording = null;
          }
          if (round === 1 && drive.method === 'GET') break;
        }
      }
    }
  }, 120_000);
  afterAll(async () => {
    Object.assign(requestMethods, original);
    Object.assign(searchParams, originalSearch);
    await world?.close();
  });

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ key: shape(method, path), operation })));

  it('drives every operation the document lists', () => {
    expect(operations().filter(({ key }) => !seen.has(key)).map(({ key }) => key)).toEqual([]);
    // Each drive succeeded at least once: a drive that only ever fails shows nothing of the success statuses.
    expect([...seen].filter(([, s]) => ![...s.statuses].some((status) => status >= 200 && status < 300)).map(([key, s]) => `${key} ${[...s.statuses].join(',')}`)).toEqual([]);
  });

  it('documents, per operation, exactly the query parameters its route reads', () => {
    const differences = operations().flatMap(({ key, operation }) => {
      const documented = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name).sort();
      const read = [...(seen.get(key)?.query ?? [])].sort();
      return JSON.stringify(documented) === JSON.stringify(read) ? [] : [{ operation: key, documented, read }];
    });
    expect(differences).toEqual([]);
  });

  it('describes what the platform\'s clients send: decimal strings, the deprecated aliases, optional and nullable fields', () => {
    type Node = Record<string, any>;
    const resolve = (node: Node): Node => (typeof node['$ref'] === 'string' ? resolve(document.components?.schemas?.[String(node['$ref']).split('/').pop() ?? ''] as Node) : node);
    const body = (path: string): Node => resolve((document.paths[`/v1/data-import/${path}`]?.['post'] as Node)['requestBody']['content']['application/json']['schema']);
    const decimalString = { type: 'string', format: 'decimal' };
    const transactions = body('transactions/create/');
    expect(transactions['properties']['account_number']).toMatchObject({ deprecated: true, type: 'string' });
    for (const path of ['notes/create/', 'historical-statements/create/']) expect(body(path)['properties']['account_number']).toMatchObject({ deprecated: true });
    const statement = resolve(body('historical-statements/create/')['properties']['statements']['items']);
    expect(statement['required']).not.toContain('gross_amount');
    expect(JSON.stringify(statement['properties']['gross_amount'])).toContain('"type":"null"');
    expect(JSON.stringify(statement['properties']['gross_amount'])).toContain(JSON.stringify(decimalString).slice(1, -1));
    const instruction = body('payment-instruction/create/');
    expect(instruction['properties']['instruction_reference']).toMatchObject({ deprecated: true, maxLength: 128 });
    expect(instruction['required']).not.toContain('reference');
    const business = body('business-payment-instruction/create/');
    expect(business['required']).not.toContain('reference');
    expect(business['properties']['reference']).toMatchObject({ type: 'string', maxLength: 512 });
  });

  it('documents, per operation, exactly the success statuses its route answers', () => {
    const differences = operations().flatMap(({ key, operation }) => {
      const documented = Object.keys(operation.responses ?? {}).filter((status) => /^2\d\d$/.test(status)).map(Number).sort();
      const answered = [...(seen.get(key)?.statuses ?? [])].filter((status) => status >= 200 && status < 300).sort();
      return JSON.stringify(documented) === JSON.stringify(answered) ? [] : [{ operation: key, documented, answered }];
    });
    expect(differences).toEqual([]);
  });
});
