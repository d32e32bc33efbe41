import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/ledger.js';

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown }>>;
  components: { securitySchemes: Record<string, unknown> };
}

/** The OpenAPI document the service serves, generated from its routes. */
describe('GET /openapi.json', () => {
  let t: TestApi;
  let document: Document;
  beforeAll(async () => {
    t = await createTestApi();
    const res = await t.app.request('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    document = (await res.json()) as Document;
  });
  afterAll(async () => t.close());

  it('is OpenAPI 3.1, served without a token, with the Token security scheme', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes['Token']).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
  });

  it('has every route of the service, in OpenAPI path syntax, and not the documentation itself', () => {
    const routes = new Set(
      t.app.routes
        .filter((route) => route.method !== 'ALL' && !['/openapi.json', '/favicon.ico'].includes(route.path) && !/^\/(docs|dashboard)(\/|$)/.test(route.path))
        .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const documented = new Set(Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`)));
    expect([...routes].filter((route) => !documented.has(route))).toEqual([]);
    expect(documented.has('post /v1/data-import/account-import-process/create-or-update/')).toBe(true);
    expect(Object.keys(document.paths).some((path) => path.startsWith('/docs') || path.startsWith('/dashboard') || path === '/openapi.json' || path === '/favicon.ico')).toBe(false);
  });

  it('is made once: two requests answer the same document', async () => {
    const again = await (await t.app.request('/openapi.json')).json();
    expect(again).toEqual(document);
  });
});
