import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { packageRoot } from '../../src/package-root.js';

interface Operation {
  operationId?: string;
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

interface Route {
  readonly method: string;
  readonly path: string;
  readonly pattern: RegExp;
  readonly operation: Operation;
}

/**
 * Checks the answers the HTTP tests receive against the OpenAPI document
 * (the committed openapi/openapi.json, which a test keeps equal to what the
 * service serves): the status must be one the operation documents, and a
 * JSON body must match that status's schema. A response that does not match
 * fails the test that received it, so the document cannot drift.
 */
export class OpenApiCheck {
  private readonly routes: Route[] = [];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly components: unknown;

  constructor(document: { paths: Record<string, Record<string, Operation>>; components?: unknown }) {
    this.components = document.components ?? {};
    for (const [path, item] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, operation] of Object.entries(item)) this.routes.push({ method: method.toUpperCase(), path, pattern, operation });
    }
  }

  /** Throws, saying what differs, when the answer is not one the document allows. */
  check(method: string, url: string, status: number, contentType: string | null, body: string | null): void {
    const pathname = new URL(url, 'http://ledger.test').pathname;
    // The document, the pages for people and their icon are not operations of the document.
    if (pathname === '/openapi.json' || pathname === '/favicon.ico' || /^\/(docs|dashboard)(\/|$)/.test(pathname)) return;
    const route = this.routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(pathname));
    if (!route) {
      // No operation: only the "no such path" and "no such method" answers are expected.
      if (status === 404 || status === 405) return;
      throw new Error(`OpenAPI: ${method} ${pathname} answered ${status} but the document has no such operation`);
    }
    const responses = route.operation.responses ?? {};
    // An operation the routes list but no description covers yet has only hono-openapi's empty default: nothing to check.
    if (Object.values(responses).every((response) => response.description === undefined)) return;
    const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses['default'];
    if (!response) {
      throw new Error(`OpenAPI: ${route.operation.operationId ?? route.path} answered ${status}, which the document does not list (${Object.keys(responses).join(', ')})`);
    }
    const schema = response.content?.['application/json']?.schema;
    if (!schema || body === null || !contentType || !/^application\/json/i.test(contentType)) return;
    const key = `${route.method} ${route.path} ${status}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile({ ...(schema as object), components: this.components });
      this.validators.set(key, validate);
    }
    const value: unknown = JSON.parse(body);
    if (!validate(value)) {
      const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}`);
      throw new Error(`OpenAPI: ${route.operation.operationId ?? route.path} ${status} body does not match the document: ${problems.join('; ')}\nbody: ${body.slice(0, 500)}`);
    }
  }
}

let shared: OpenApiCheck | null = null;

/** The check over the committed document, made once per test worker. */
export function openApiCheck(): OpenApiCheck {
  return (shared ??= new OpenApiCheck(JSON.parse(readFileSync(join(packageRoot(), 'openapi/openapi.json'), 'utf8')) as never));
}

/** `request` with every answer checked against the document (streams other than JSON are checked by status only). */
export function checkedRequest<R extends (input: Request | string | URL, init?: RequestInit) => Response | Promise<Response>>(request: R): R {
  return (async (input: Request | string | URL, init?: RequestInit) => {
    const res = await request(input, init);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const url = input instanceof Request ? input.url : String(input);
    const contentType = res.headers.get('content-type');
    const json = contentType !== null && /^application\/json/i.test(contentType);
    openApiCheck().check(method, url, res.status, contentType, json ? await res.clone().text() : null);
    return res;
  }) as R;
}

/** The global fetch, every answer checked: for tests that talk to a real server over a real port. */
export const checkedFetch: typeof fetch = checkedRequest(globalThis.fetch.bind(globalThis)) as typeof fetch;

/**
 * An app built outside `createTestApi` (its own logger, a second instance on the same database, a
 * reopened store), its `request` checked like `createTestApi`'s. Returns the same app.
 */
export function checkedApp<A extends { request: (input: Request | string | URL, init?: RequestInit) => Response | Promise<Response> }>(app: A): A {
  app.request = checkedRequest(app.request);
  return app;
}

/**
 * A server's fetch handler whose every answer is checked on its way out, for a client the test does not
 * hold (a spawned process, the migrate command's own HTTP client). A mismatch cannot fail the request
 * (the client would see a 500, not the reason): it is handed to `onMismatch`, and the test fails on it
 * at its end. The body is read in full from a clone, so this suits answers the client reads in full.
 */
export function checkedHandler(handler: (req: Request) => Response | Promise<Response>, onMismatch: (error: Error) => void): (req: Request) => Promise<Response> {
  return async (req: Request) => {
    const res = await handler(req);
    const contentType = res.headers.get('content-type');
    const json = contentType !== null && /^application\/json/i.test(contentType);
    try {
      openApiCheck().check(req.method, req.url, res.status, contentType, json ? await res.clone().text() : null);
    } catch (error) {
      onMismatch(error instanceof Error ? error : new Error(String(error)));
    }
    return res;
  };
}
