import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NoAnswer, createLedgerClient, createNodeHttpTransport } from '../../src/client/index.js';
import { SUPPLIER, createTestApi, loadExample, type TestApi } from '../support/ledger.js';
import { checkedHandler } from '../support/openapi-check.js';

/** The typed client over the node:http transport (what `import-ledger migrate` uses), against real servers on real ports. */
describe('the typed client over the node:http transport', () => {
  let t: TestApi;
  let server: ServerType;
  let base: string;
  const mismatches: Error[] = [];
  const transport = createNodeHttpTransport({ timeoutMs: 2_000, maxSockets: 4 });
  beforeAll(async () => {
    t = await createTestApi();
    server = serve({ fetch: checkedHandler((req) => t.app.fetch(req), (error) => mismatches.push(error)), hostname: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    transport.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
    expect(mismatches).toEqual([]);
  });

  it('sends typed requests and reads typed answers: a success as data, a refusal as error, the headers as sent', async () => {
    const client = createLedgerClient(base, await t.token(), transport);
    // An input file's account, as the migrate command sends it: the service, not the compiler, judges it.
    const stage = (ext: string) =>
      client.POST('/v1/data-import/account-import-process/create-or-update/', {
        body: { ...loadExample('account-domestic.json'), external_account_number: ext } as never,
        headers: { 'idempotency-key': `transport-${ext}` },
      });
    const staged = await stage('LEG-TRANSPORT-1');
    expect(staged.response.status).toBe(201);
    expect(staged.data).toMatchObject({ external_account_number: 'LEG-TRANSPORT-1', import_supplier_code: SUPPLIER });
    const replayed = await stage('LEG-TRANSPORT-1');
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
    const refused = await client.POST('/v1/data-import/account-import-process/process/', {
      body: { external_account_number: 'LEG-NEVER-STAGED', import_supplier_code: SUPPLIER, operations_team_name: 'Migrations' },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ code: 'import_process_does_not_exist' });
    await stage('LEG-TRANSPORT-2');
    const list = await client.GET('/v1/data-import/all-account-import-processes/{supplier}/', { params: { path: { supplier: SUPPLIER }, query: { limit: '1' } } });
    expect(list.data).toHaveLength(1);
    expect(list.response.headers.get('link')).toMatch(/rel="next"/);
  });

  it('a front that answers plain text gives that text, never a throw; no answer at all rejects with NoAnswer', async () => {
    const front: Server = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '2' });
      res.end('Service Unavailable');
    });
    front.listen(0, '127.0.0.1');
    await once(front, 'listening');
    const port = (front.address() as AddressInfo).port;
    try {
      const answer = await createLedgerClient(`http://127.0.0.1:${port}`, 'x', transport).GET('/healthz');
      expect({ status: answer.response.status, error: answer.error, retryAfter: answer.response.headers.get('Retry-After') }).toEqual({ status: 503, error: 'Service Unavailable', retryAfter: '2' });
    } finally {
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
    // The port was just closed: connection refused.
    await expect(createLedgerClient(`http://127.0.0.1:${port}`, 'x', transport).GET('/healthz')).rejects.toBeInstanceOf(NoAnswer);
  });
});
