import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inlineProjections } from '../../projections/index.js';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import type { Endpoint } from '../support/endpoints.js';
import { fuzzCase, isSpecErrorBody, isTransactionImportErrorBody, prototypeSnapshot, unsafeStoredNumbers } from '../support/fuzz.js';

/**
 * The endpoints' fuzz test, shared by fuzz-*.test.ts (each takes a share of the
 * endpoint table, so the shares run in parallel): per endpoint, RUNS hostile
 * requests against one app. Every answer is a 2xx or a 4xx in spec 7's shape
 * (the transactions endpoint's TRANSACTION_IMPORT_ERROR body too), never a
 * 5xx; afterwards Object.prototype is unchanged, nothing stored holds a
 * non-finite or unsafe number, and the projections equal a rebuild from the log.
 */
// 200 (twice fast-check's default) keeps `npm test` within its time budget; LEDGER_FUZZ_RUNS=1000 is the long run.
export const RUNS = Number(process.env['LEDGER_FUZZ_RUNS'] ?? 200);

const hostileSegment = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('..', '.', '%00', '%', '%E0%A4%A', 'LEGACY_ENERGIE', 'OTHER_SUPPLIER', 'LEG-0000001', '\ud800', ' ', 'x'.repeat(5000), '__proto__', 'constructor'),
);

function describeGet(endpoint: Endpoint) {
  return fc.record({ supplier: hostileSegment, ext: hostileSegment, batchId: hostileSegment, query: fc.oneof(fc.constant(''), fc.string({ maxLength: 40 }).map((q) => `?${q}`), fc.constantFrom('?after=-1', '?limit=0', '?limit=99999', '?after=1e400', '?as_of=2025-13-45T99:00:00Z', '?as_of=x', '?after=9007199254740993', '?limit=1&limit=2')) }).map((p) => {
    let path: string;
    try {
      path = endpoint.path({ supplier: p.supplier, ext: p.ext, batchId: p.batchId, webhookId: p.batchId, apiKey: '' });
    } catch {
      // encodeURIComponent refuses lone surrogates: send the segments raw instead.
      path = endpoint.path({ supplier: 'X', ext: 'Y', batchId: 'Z', webhookId: 'Z', apiKey: '' }).replace('/X/', `/${p.supplier}/`).replace('/Y/', `/${p.ext}/`).replace('/Z/', `/${p.batchId}/`);
    }
    return path + p.query;
  });
}

export function fuzzEndpoints(share: readonly Endpoint[]): void {
  describe.each(share.map((e) => [e.name, e] as [string, Endpoint]))('%s', (_name, endpoint) => {
    let world: EndpointWorld;
    let token: string;
    const prototypeBefore = prototypeSnapshot();
    beforeAll(async () => {
      world = await createEndpointWorld({ maxBodyBytes: 1024 * 1024 });
      token = await world.token();
    });
    afterAll(() => world.close());

    it(`${RUNS} hostile requests: 2xx or a 4xx in the error shape, never a 5xx; nothing polluted or stored unsafely`, async () => {
      const failures: string[] = [];
      const outcomes = new Map<string, number>();
      const check = async (res: Response, what: () => string) => {
        const text = await res.text();
        let body: unknown;
        try {
          // A 2xx of an NDJSON endpoint is one JSON value per line (none for an empty export).
          body = res.status < 300 && endpoint.ndjson ? text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown) : JSON.parse(text);
        } catch {
          body = undefined;
        }
        const outcome = `${res.status} ${(body as { code?: string } | undefined)?.code ?? ''}`;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        const ok =
          res.status < 300
            ? body !== undefined
            : res.status < 500 &&
              (endpoint.auth
                ? isSpecErrorBody(body) || (endpoint.transactionImportError === true && res.status === 400 && isTransactionImportErrorBody(body))
                : body !== undefined);
        const dump = process.env['LEDGER_FUZZ_DUMP'];
        if (!ok && dump) appendFileSync(dump, `${JSON.stringify({ endpoint: endpoint.name, status: res.status, request: what() })}\n`);
        if (!ok && failures.length < 5) failures.push(`${res.status} ${text.slice(0, 300)} <- ${what().slice(0, 600)}`);
        return ok;
      };
      // @hono/graphql-server writes every refused request to console.error: keep the test output readable.
      const quiet = endpoint.auth ? null : vi.spyOn(console, 'error').mockImplementation(() => undefined);
      if (endpoint.method === 'GET') {
        await fc.assert(
          fc.asyncProperty(describeGet(endpoint), async (path) => {
            let res: Response;
            try {
              res = await world.api.app.request(path, { headers: { authorization: `Token ${token}` } });
            } catch (error) {
              // Only a URL the Request constructor refuses may throw, before the app is reached.
              if (error instanceof TypeError && /URL|Invalid/i.test(error.message)) return true;
              throw error;
            }
            return check(res, () => path);
          }),
          { numRuns: RUNS, endOnFailure: true },
        ).catch((error: Error) => {
          throw new Error(`${failures.join('\n')}\n${error.message.slice(0, 2000)}\n${error.stack?.slice(0, 3000)}`);
        });
      } else {
        const examples = endpoint.payloads(world.params(endpoint));
        await fc.assert(
          fc.asyncProperty(fuzzCase(examples), async (c) => {
            const headers: Record<string, string> = {};
            if (c.contentType) headers['content-type'] = c.contentType;
            if (endpoint.auth) headers['authorization'] = `Token ${token}`;
            const what = () => `${c.contentType} ${typeof c.text === 'string' ? c.text : `bytes ${Buffer.from(c.text).toString('utf8')}`}`;
            let res: Response;
            try {
              res = await world.api.app.request(endpoint.path(world.params(endpoint)), { method: 'POST', headers, body: c.text });
            } catch (error) {
              if (failures.length < 5) failures.push(`threw ${(error as Error).stack?.slice(0, 1500)} <- ${what().slice(0, 600)}`);
              throw error;
            }
            return check(res, what);
          }),
          { numRuns: RUNS, endOnFailure: true },
        ).catch((error: Error) => {
          throw new Error(`${failures.join('\n')}\n${error.message.slice(0, 2000)}\n${error.stack?.slice(0, 3000)}`);
        });
      }
      quiet?.mockRestore();
      if (process.env['LEDGER_FUZZ_STATS']) console.log(endpoint.name, JSON.stringify([...outcomes].sort((a, b) => b[1] - a[1])));
      expect(prototypeSnapshot()).toBe(prototypeBefore);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
      expect(await unsafeStoredNumbers(world.api)).toEqual([]);
      // Every stored event still reads through its schema (a number turned to null would not).
      for (let after = 0; ; ) {
        const page = await world.api.ledger.store.readAll(after, 1000);
        if (page.length === 0) break;
        after = page[page.length - 1]!.globalPosition;
      }
      expect((await world.api.ledger.projections.verify(inlineProjections)).differences).toEqual([]);
    }, 120_000);
  });
}
