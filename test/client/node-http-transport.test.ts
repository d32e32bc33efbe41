import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NoAnswer, createLedgerClient, createNodeHttpTransport } from '../../src/client/index.js';
import { createApiClient } from '../../src/migrate/api-client.js';
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
    const list = await client.GET('/v1/data-import/all-account-import-processes/{supplier}/', { params: { path: { supplier: SUPPLIER }, query: { limit: 1 } } });
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

/** The migrate command's writes: typed from the document, handed to the transport's `send` without openapi-fetch's runtime. */
describe('createApiClient().post: the writes straight through the transport', () => {
  it('sends the body as given with the token, the key and the JSON content type; reads each kind of answer as openapi-fetch would', async () => {
    const seen: { path: string; headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const answers: [number, Record<string, string>, string][] = [
      [201, { 'content-type': 'application/json', 'idempotent-replayed': 'true' }, '{"external_account_number":"LEG-1","platform_account_number":"A-1"}'],
      [503, { 'content-type': 'text/plain', 'retry-after': '3' }, 'Service Unavailable'],
      [400, { 'content-type': 'application/json' }, '{"code":"validation_error","detail":"no"}'],
      [204, {}, ''],
    ];
    const front: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const [status, headers, body] = answers[seen.length - 1]!;
        res.writeHead(status, headers);
        res.end(body);
      });
    });
    front.listen(0, '127.0.0.1');
    await once(front, 'listening');
    const client = createApiClient({ baseUrl: `http://127.0.0.1:${(front.address() as AddressInfo).port}/`, timeoutMs: 2_000 });
    try {
      const path = '/v1/data-import/account-import-process/process/' as const;
      const body = { value: { external_account_number: 'LEG-1', import_supplier_code: 'S', operations_team_name: 'T' } };
      const created = await client.post(path, body, { token: 'tok', idempotencyKey: 'key-1' });
      expect(created).toEqual({ status: 201, body: { external_account_number: 'LEG-1', platform_account_number: 'A-1' }, retryAfterMs: null, next: null, replayed: true });
      expect(seen[0]).toMatchObject({ path, body: JSON.stringify(body.value), headers: { 'content-type': 'application/json', authorization: 'Token tok', 'idempotency-key': 'key-1' } });
      // An input file's text goes as read, not re-serialised; no key, no header.
      const text = '{ "external_account_number" : "LEG-1" }';
      const unavailable = await client.post('/v1/data-import/account-import-process/create-or-update/', { json: text }, { token: 'tok' });
      expect(unavailable).toEqual({ status: 503, body: 'Service Unavailable', retryAfterMs: 3_000, next: null, replayed: false });
      expect(seen[1]!.body).toBe(text);
      expect(seen[1]!.headers['idempotency-key']).toBeUndefined();
      expect((await client.post(path, body, { token: 'tok' })).body).toEqual({ code: 'validation_error', detail: 'no' });
      expect((await client.post(path, body, { token: 'tok' })).body).toBeUndefined();
    } finally {
      client.close();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
  });
});
