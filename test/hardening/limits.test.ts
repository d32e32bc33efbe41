import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_ARRAY_ITEMS, MAX_JSON_DEPTH } from '../../src/http/json-limits.js';
import { createEndpointWorld, type EndpointWorld } from '../support/endpoint-world.js';
import { dataImportPosts, type Endpoint } from '../support/endpoints.js';
import { expectErrorBody } from '../support/http.js';
import { checkedFetch } from '../support/openapi-check.js';

/** The request limits (docs/reliability.md) on every POST under /v1/data-import/, in spec 7's shape, writing nothing. */

const LIMIT = 256 * 1024;
let world: EndpointWorld;
beforeAll(async () => {
  world = await createEndpointWorld({ maxBodyBytes: LIMIT });
});
afterAll(() => world.close());

/** A body stream without a length, in chunks. */
function streamOf(text: string, chunkSize = 16 * 1024): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

/** A JSON object of exactly `bytes` bytes. */
const jsonOfSize = (bytes: number) => JSON.stringify({ padding: 'x'.repeat(bytes - JSON.stringify({ padding: '' }).length) });

async function send(endpoint: Endpoint, body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Promise<Response> {
  const token = await world.token();
  return world.api.app.request(endpoint.path(world.params(endpoint)), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Token ${token}`, ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
}

describe.each(dataImportPosts.map((e) => [e.name, e] as [string, Endpoint]))('%s', (_name, endpoint) => {
  it(`body size: over ${LIMIT} bytes is 413 payload_too_large with Content-Length, chunked, or a Content-Length that lies`, async () => {
    const before = await world.eventCount();
    const over = jsonOfSize(LIMIT + 1);
    await expectErrorBody(await send(endpoint, over), 413, 'payload_too_large');
    await expectErrorBody(await send(endpoint, streamOf(over)), 413, 'payload_too_large');
    // Content-Length understating the body: counted on the stream all the same.
    await expectErrorBody(await send(endpoint, streamOf(over), { 'content-length': '10' }), 413, 'payload_too_large');
    // Content-Length overstating a small body: refused on the header.
    await expectErrorBody(await send(endpoint, '{}', { 'content-length': String(LIMIT + 1) }), 413, 'payload_too_large');
    // A body of exactly the limit is read (and refused by the endpoint's own rules, not the size).
    const exact = await send(endpoint, streamOf(jsonOfSize(LIMIT)), { 'content-length': '10' });
    expect(exact.status).toBeGreaterThanOrEqual(400);
    expect(exact.status).not.toBe(413);
    expect(await world.eventCount()).toBe(before);
  });

  it('structure: nesting, array length, strings, numbers and lone surrogates are 400 with a clear code', async () => {
    const before = await world.eventCount();
    const example = JSON.stringify(endpoint.payloads(world.params(endpoint))[0]);
    // Each problem is put inside a copy of the example, under a key the endpoint does not know.
    const inject = (json: string) => {
      if (example.startsWith('[')) return `[${json},${example.slice(1)}`;
      // An empty example (`{}`: rotate-secret/, delete/) takes the key alone, without a comma after it.
      return example === '{}' ? `{"zz_extra":${json}}` : `{"zz_extra":${json},${example.slice(1)}`;
    };
    const cases: [string, string][] = [
      ['nesting_too_deep', inject('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))],
      ['nesting_too_deep', '['.repeat(100_000) + ']'.repeat(100_000)],
      ['array_too_long', inject(`[${Array(MAX_JSON_ARRAY_ITEMS + 1).fill('0').join(',')}]`)],
      ['string_too_long', inject(`"${'x'.repeat(70_000)}"`)],
      ['number_out_of_range', inject('1e400')],
      ['number_precision_lost', inject('9007199254740993')],
      ['invalid_unicode', inject('"\\udfff"')],
    ];
    for (const [code, body] of cases) {
      await expectErrorBody(await send(endpoint, body), 400, code).catch((error: Error) => {
        throw new Error(`${code}: ${error.message}`);
      });
    }
    expect(await world.eventCount()).toBe(before);
  });

  it('content types and malformed JSON: 415 / 400 parse_error', async () => {
    const example = JSON.stringify(endpoint.payloads(world.params(endpoint))[0]);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', '']) {
      await expectErrorBody(await send(endpoint, example, { 'content-type': type }), 415, 'unsupported_media_type');
    }
    for (const body of [example.slice(0, example.length / 2), '', '{"a":', 'nul', '{"a":1}}']) {
      await expectErrorBody(await send(endpoint, body), 400, 'parse_error').catch((error: Error) => {
        throw new Error(`${JSON.stringify(body.slice(0, 20))}: ${error.message}`);
      });
    }
  });
});

/**
 * Served by @hono/node-server, json-body.ts reads the Node request stream itself (no WHATWG Request
 * per request): the same limits hold there, over a real socket.
 */
describe('bodies through the real HTTP server', () => {
  let server: ServerType;
  let port: number;
  beforeAll(async () => {
    server = serve({ fetch: world.api.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const stage = dataImportPosts.find((e) => e.name === 'POST account-import-process/create-or-update/')!;

  /** POSTs `chunks` one write at a time (chunked transfer encoding unless a length is given). */
  async function post(endpoint: Endpoint, chunks: (string | Buffer)[], headers: Record<string, string> = {}): Promise<Response> {
    const token = await world.token();
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { port, host: '127.0.0.1', method: 'POST', path: endpoint.path(world.params(endpoint)), headers: { 'content-type': 'application/json', authorization: `Token ${token}`, ...headers } },
        (res) => {
          const body: Buffer[] = [];
          res.on('data', (chunk: Buffer) => body.push(chunk));
          res.on('end', () => resolve(new Response(Buffer.concat(body), { status: res.statusCode ?? 0, headers: res.headers as Record<string, string> })));
        },
      );
      req.on('error', reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  it('a valid body in several chunks is read whole and staged', async () => {
    const text = JSON.stringify(stage.payloads(world.params(stage))[0]);
    const res = await post(stage, [text.slice(0, 100), text.slice(100, 2000), text.slice(2000)]);
    expect(stage.success).toContain(res.status);
  });

  it('over the limit in chunks without Content-Length: 413, nothing written', async () => {
    const before = await world.eventCount();
    const over = jsonOfSize(LIMIT * 2);
    const chunks = Array.from({ length: Math.ceil(over.length / 8192) }, (_, i) => over.slice(i * 8192, (i + 1) * 8192));
    await expectErrorBody(await post(stage, chunks), 413, 'payload_too_large');
    expect(await world.eventCount()).toBe(before);
  });

  it('bytes that are not UTF-8, malformed JSON and structural limits: 400 in the error shape, nothing written', async () => {
    const before = await world.eventCount();
    await expectErrorBody(await post(stage, [Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])]), 400, 'parse_error');
    await expectErrorBody(await post(stage, ['{"a":']), 400, 'parse_error');
    await expectErrorBody(await post(stage, ['['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1)]), 400, 'nesting_too_deep');
    expect(await world.eventCount()).toBe(before);
  });
});
